package initimage

// Rebuild the carried init and its record after changing its sources.
//go:generate go run ./gen
