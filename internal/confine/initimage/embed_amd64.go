//go:build linux && amd64

package initimage

import _ "embed"

// blob is the init built by gen for linux/amd64. A string: the data stays
// in the image's read-only segment.
//
//go:embed init_linux_amd64.bin
var blob string

// recordText is blob's record (imagesrc.Record): what it was built from.
//
//go:embed init_linux_amd64.sum
var recordText string
