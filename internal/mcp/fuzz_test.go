package mcp

import (
	"bytes"
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"io"
	"testing"
	"time"
)

// FuzzLineTransport: whatever a client writes, the connection answers or
// passes on each line and never panics or stops reading early.
func FuzzLineTransport(f *testing.F) {
	for _, s := range []string{
		"not json", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[1,2]`, `{"id":{"a":1}}`,
		`{"jsonrpc":"2.0","id":7,"method":5}`, "\x00\xff", `"str"`, `{"jsonrpc":"2.0","result":{},"id":3}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var out bytes.Buffer
		in := io.NopCloser(bytes.NewBufferString(line + "\n" + `{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n"))
		conn, _ := (&LineTransport{In: in, Out: &out, MaxLine: 1 << 10}).Connect(context.Background())
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		for {
			msg, err := conn.Read(ctx)
			if err == io.EOF {
				t.Fatalf("EOF before the last request (line %q)", line)
			}
			if err != nil {
				t.Fatalf("%v before the last request (line %q)", err, line)
			}
			if b, _ := jsonrpcID(msg); b == `"last"` {
				return
			}
		}
	})
}

func jsonrpcID(msg any) (string, bool) {
	r, ok := msg.(*jsonrpc.Request)
	if !ok {
		return "", false
	}
	id, _ := r.ID.Raw().(string)
	return `"` + id + `"`, true
}
