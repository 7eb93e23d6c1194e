package coderun

import (
	"net/http"
	"path"
	"strings"
	"unicode/utf8"
)

// byExt are the types an extension decides, for formats content sniffing
// cannot tell from text (csv, json, svg, markdown). A fixed table, not the
// host's mime database, so a result is the same on every host.
var byExt = map[string]string{
	".csv":  "text/csv; charset=utf-8",
	".tsv":  "text/tab-separated-values; charset=utf-8",
	".json": "application/json",
	".md":   "text/markdown; charset=utf-8",
	".txt":  "text/plain; charset=utf-8",
	".svg":  "image/svg+xml",
	".html": "text/html; charset=utf-8",
	".xml":  "application/xml",
	".yaml": "application/yaml",
	".yml":  "application/yaml",
}

// DetectMIME is the type of an artifact: by content for binary formats
// (the sniffed type wins where it is specific), by extension for text.
func DetectMIME(name string, data []byte) string {
	sniffed := http.DetectContentType(data)
	if t, ok := byExt[strings.ToLower(path.Ext(name))]; ok && (strings.HasPrefix(sniffed, "text/") || sniffed == "application/octet-stream") {
		return t
	}
	return sniffed
}

// IsText reports whether an artifact may be shown as text: a textual type
// and valid UTF-8.
func IsText(mime string, data []byte) bool {
	textual := strings.HasPrefix(mime, "text/") || strings.HasPrefix(mime, "application/json") ||
		strings.HasPrefix(mime, "application/xml") || strings.HasPrefix(mime, "application/yaml") || strings.HasPrefix(mime, "image/svg")
	return textual && utf8.Valid(data)
}
