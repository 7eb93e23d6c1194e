package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestRun(t *testing.T) {
	var status atomic.Int32
	status.Store(200)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/health" {
			w.WriteHeader(404)
			return
		}
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		args   []string
		status int32
		want   int
	}{
		{[]string{srv.URL + "/v1/health"}, 200, 0},
		{[]string{srv.URL + "/v1/health"}, 503, 1},
		{[]string{srv.URL + "/other"}, 200, 1},
		{[]string{"http://127.0.0.1:1/v1/health"}, 200, 1},
		{[]string{"ftp://x/"}, 200, 2},
		{[]string{"a", "b"}, 200, 2},
	} {
		status.Store(tc.status)
		if got := run(tc.args, io.Discard); got != tc.want {
			t.Errorf("%v with %d: exit %d, want %d", tc.args, tc.status, got, tc.want)
		}
	}
}
