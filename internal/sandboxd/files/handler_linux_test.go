//go:build linux

package files

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRoundTrip drives the reference daemon's own REST round trip (PUT,
// read back, list, DELETE, 404, health 503 on shutdown) through the fence.
func TestRoundTrip(t *testing.T) {
	f := newFix(t, nil)
	if r := f.do(t, http.MethodGet, "/v1/health", nil); r.status != http.StatusOK {
		t.Fatalf("health: %d %s", r.status, r.body)
	}
	r := f.put(t, "/v1/files/notes/hello.txt", "hello from REST")
	if r.status != http.StatusNoContent || r.outcomeKind(t) != "ok" || len(r.body) != 0 {
		t.Fatalf("PUT: %d %q", r.status, r.body)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "notes/hello.txt")); string(b) != "hello from REST" {
		t.Fatalf("on disk: %q", b)
	}
	r = f.do(t, http.MethodGet, "/v1/files/notes/hello.txt", nil)
	if r.status != http.StatusOK || string(r.body) != "hello from REST" || r.header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("GET: %d %q %v", r.status, r.body, r.header)
	}
	r = f.do(t, http.MethodGet, "/v1/files/notes", nil)
	var l DirectoryListing
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil || r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("list: %d %q %v", r.status, r.body, err)
	}
	if len(l.Entries) != 1 || l.Entries[0].Name != "hello.txt" || l.Entries[0].Type != "file" ||
		l.Entries[0].Size != 15 || l.Entries[0].Mode != "0644" || l.Path != "/workspace/notes" {
		t.Fatalf("listing: %+v", l)
	}
	if _, err := time.Parse(time.RFC3339, l.Entries[0].ModifiedAt); err != nil {
		t.Errorf("modified_at: %v", err)
	}
	if r = f.do(t, http.MethodDelete, "/v1/files/notes/hello.txt", nil); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	r = f.do(t, http.MethodGet, "/v1/files/notes/hello.txt", nil)
	if r.status != http.StatusNotFound || r.errorCode(t) != CodeNotFound || r.outcomeKind(t) != "not-found" {
		t.Fatalf("GET after DELETE: %d %s", r.status, r.body)
	}
	f.h.SetShuttingDown()
	r = f.do(t, http.MethodGet, "/v1/health", nil)
	if r.status != http.StatusServiceUnavailable || r.errorCode(t) != CodeUnavailable {
		t.Fatalf("health after shutdown: %d %s", r.status, r.body)
	}
}

func TestContract(t *testing.T) {
	f := newFix(t, nil)
	for _, tc := range []struct {
		name, method, target, body string
		status                     int
		code                       string
	}{
		{"mode", "PUT", "/v1/files/run.sh?mode=0755", "#!/bin/sh", 204, ""},
		{"mode 0000", "PUT", "/v1/files/locked?mode=0000", "x", 204, ""},
		{"bad mode 0999", "PUT", "/v1/files/f?mode=0999", "x", 400, CodeInvalidArgument},
		{"bad mode 777", "PUT", "/v1/files/f?mode=777", "x", 400, CodeInvalidArgument},
		{"bad mode 01777", "PUT", "/v1/files/f?mode=01777", "x", 400, CodeInvalidArgument},
		{"bad mode 04755", "PUT", "/v1/files/f?mode=04755", "x", 400, CodeInvalidArgument},
		{"encoded slashes", "PUT", "/v1/files/dir%2Fsub%2Ffile.txt", "x", 204, ""},
		{"put on dir", "PUT", "/v1/files/dir", "x", 400, CodeInvalidArgument},
		{"put under file", "PUT", "/v1/files/a.txt/x", "x", 400, CodeInvalidArgument},
		{"put root", "PUT", "/v1/files/", "x", 400, CodeInvalidArgument},
		{"get under file", "GET", "/v1/files/a.txt/x", "", 404, CodeNotFound},
		{"head present", "HEAD", "/v1/files/a.txt", "", 200, ""},
		{"head absent", "HEAD", "/v1/files/absent", "", 404, ""},
		{"delete non-empty", "DELETE", "/v1/files/dir", "", 409, CodeConflict},
		{"delete root", "DELETE", "/v1/files/", "", 409, CodeConflict},
		{"bad recursive", "DELETE", "/v1/files/a.txt?recursive=banana", "", 400, CodeInvalidArgument},
		{"delete absent", "DELETE", "/v1/files/absent", "", 404, CodeNotFound},
		{"delete recursive", "DELETE", "/v1/files/dir?recursive=true", "", 204, ""},
		{"absolute under mount", "GET", "/v1/files/%2Fworkspace%2Fa.txt", "", 200, ""},
		{"absolute under host root", "GET", "/v1/files/" + strings.ReplaceAll(f.root, "/", "%2F") + "%2Fa.txt", "", 200, ""},
		{"post", "POST", "/v1/files/a.txt", "x", 405, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, tc.method, tc.target, strings.NewReader(tc.body))
			if r.status != tc.status {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.target, r.status, r.body, tc.status)
			}
			if tc.code != "" && tc.method != "HEAD" && r.errorCode(t) != tc.code {
				t.Errorf("code: %s", r.body)
			}
		})
	}
	for name, want := range map[string]os.FileMode{"run.sh": 0o755, "locked": 0} {
		if st, err := os.Stat(filepath.Join(f.root, name)); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v %v", name, st, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.root, "dir")); !os.IsNotExist(err) {
		t.Errorf("dir survived a recursive delete: %v", err)
	}
}

func TestListing(t *testing.T) {
	f := newFix(t, nil)
	must(t, os.Mkdir(filepath.Join(f.root, "empty"), 0o755))
	must(t, os.Symlink("a.txt", filepath.Join(f.root, "inlink")))
	must(t, os.Symlink("../outside", filepath.Join(f.root, "outlink")))
	must(t, os.Symlink("missing", filepath.Join(f.root, "broken")))
	r := f.do(t, http.MethodGet, "/v1/files/empty", nil)
	if !strings.Contains(string(r.body), `"entries":[]`) {
		t.Errorf("empty directory: %s (entries must be [], never null)", r.body)
	}
	for _, target := range []string{"/v1/files/", "/v1/files/%2E", "/v1/files/%2F", "/v1/files/%2Fworkspace"} {
		r = f.do(t, http.MethodGet, target, nil)
		var l DirectoryListing
		must(t, json.Unmarshal(r.body, &l))
		var got []string
		for _, e := range l.Entries {
			got = append(got, e.Name+":"+e.Type)
		}
		// secret/ is denied, outlink leads out, broken leads nowhere.
		want := []string{".git:directory", "a.txt:file", "empty:directory", "inlink:file"}
		if diff := cmp.Diff(want, got); diff != "" || l.Path != "/workspace" {
			t.Errorf("%s: path %s, entries (-want +got):\n%s", target, l.Path, diff)
		}
	}
	g := newFix(t, func(o *Options) { o.MaxListEntries = 1 })
	r = g.do(t, http.MethodGet, "/v1/files/", nil)
	if r.status != http.StatusOK || r.outcomeKind(t) != "scope-limited" {
		t.Errorf("bounded listing: %d %s %v", r.status, r.body, r.header)
	}
}

func TestMultipart(t *testing.T) {
	f := newFix(t, nil)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	must(t, mw.WriteField("other", "ignored"))
	part, err := mw.CreateFormFile("file", "upload.bin")
	must(t, err)
	_, _ = part.Write([]byte("multipart-payload"))
	must(t, mw.Close())
	r := f.do(t, http.MethodPut, "/v1/files/upload.bin", &buf, "Content-Type", mw.FormDataContentType())
	if b, _ := os.ReadFile(filepath.Join(f.root, "upload.bin")); r.status != 204 || string(b) != "multipart-payload" {
		t.Fatalf("multipart: %d %s, file %q", r.status, r.body, b)
	}
	buf.Reset()
	mw = multipart.NewWriter(&buf)
	must(t, mw.WriteField("notfile", "x"))
	must(t, mw.Close())
	r = f.do(t, http.MethodPut, "/v1/files/nofile", &buf, "Content-Type", mw.FormDataContentType())
	if r.status != 400 || r.errorCode(t) != CodeInvalidArgument {
		t.Errorf("no file part: %d %s", r.status, r.body)
	}
}

func TestMetadataWithholdsCredentials(t *testing.T) {
	f := newFix(t, nil)
	r := f.do(t, http.MethodGet, "/v1/metadata", nil)
	var m MetadataResponse
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	must(t, dec.Decode(&m))
	want := map[string]string{"SANDBOX_ID": "sbx-123", "SANDBOX_WORKSPACE": "/workspace"}
	if diff := cmp.Diff(want, m.Env); diff != "" || r.status != 200 {
		t.Errorf("metadata %d (-want +got):\n%s", r.status, diff)
	}
	g := newFix(t, func(o *Options) { o.Environ = func() []string { return nil } })
	if r := g.do(t, http.MethodGet, "/v1/metadata", nil); strings.TrimSpace(string(r.body)) != `{"env":{}}` {
		t.Errorf("empty metadata: %s", r.body)
	}
}

func TestNewHandlerRefuses(t *testing.T) {
	f := newFix(t, nil)
	if _, err := NewHandler(Options{Root: f.root}); err == nil {
		t.Error("no workspace accepted")
	}
	if _, err := NewHandler(Options{Root: f.outside, Workspace: f.h.ws}); err == nil {
		t.Error("a root other than the workspace's accepted")
	}
	if _, err := NewHandler(Options{Workspace: f.h.ws}); err == nil {
		t.Error("no root accepted")
	}
	// A link to the root is the root.
	must(t, os.Symlink(f.root, filepath.Join(f.base, "rootlink")))
	if _, err := NewHandler(Options{Root: filepath.Join(f.base, "rootlink"), Workspace: f.h.ws}); err != nil {
		t.Errorf("a link to the root refused: %v", err)
	}
}
