// Package testnet: see testnet_linux.go (Linux only: network namespaces).
package testnet
