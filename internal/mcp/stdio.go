package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// LineTransport is newline-delimited JSON-RPC over a reader and a writer
// (stdio), forgiving where the SDK's own is not: a line that is not JSON
// is answered with a parse error, a line that is not a JSON-RPC message (a
// batch, a wrong field type) with an invalid-request error, and a line
// longer than MaxLine is discarded and answered the same way — and in
// every case the connection keeps serving. A hostile client cannot end a
// session, or make the server buffer without bound, by what it writes.
type LineTransport struct {
	In  io.ReadCloser
	Out io.Writer
	// MaxLine bounds one inbound line; zero is DefaultMaxLine.
	MaxLine int
}

// DefaultMaxLine bounds one inbound line: 4 MiB, above the tools' own
// argument bound (1 MiB), which they report as invalid-arguments.
const DefaultMaxLine = 4 << 20

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	c := &lineConn{in: t.In, out: t.Out, msgs: make(chan jsonrpc.Message), done: make(chan struct{}), eof: make(chan error, 1)}
	go c.readLoop(max)
	return c, nil
}

type lineConn struct {
	in   io.ReadCloser
	out  io.Writer
	wmu  sync.Mutex
	msgs chan jsonrpc.Message
	eof  chan error
	done chan struct{}
	once sync.Once
}

func (c *lineConn) readLoop(max int) {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := c.decode(line, tooLong); msg != nil {
				select {
				case c.msgs <- msg:
				case <-c.done:
					return
				}
			}
		}
		if err != nil {
			c.eof <- err
			return
		}
	}
}

// readLine reads one line of at most max bytes; a longer one is read to its
// end and dropped (tooLong).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// decode returns the message on line, or answers the client with the
// error and returns nil.
func (c *lineConn) decode(line []byte, tooLong bool) jsonrpc.Message {
	if tooLong {
		c.reject(nil, jsonrpc.CodeInvalidRequest, "message too large")
		return nil
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		c.reject(nil, jsonrpc.CodeParseError, "parse error: not JSON")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.reject(idOf(line), jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message")
		return nil
	}
	return msg
}

// idOf is the request's id when it is a string or a number, else null.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

func (c *lineConn) reject(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		V   string          `json:"jsonrpc"`
		ID  json.RawMessage `json:"id"`
		Err struct {
			Code int64  `json:"code"`
			Msg  string `json:"message"`
		} `json:"error"`
	}{V: "2.0", ID: id, Err: struct {
		Code int64  `json:"code"`
		Msg  string `json:"message"`
	}{code, msg}})
	_ = c.writeLine(b)
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.msgs:
		return m, nil
	case err := <-c.eof:
		c.eof <- err // every later Read sees it too
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, err
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() {
		close(c.done)
		_ = c.in.Close()
	})
	return nil
}

func (c *lineConn) SessionID() string { return "" }

// ServeStdio serves one session over in and out until the client closes
// its end or ctx ends; calls in flight are then cancelled, which kills
// their commands.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := s.mcp.Run(ctx, &LineTransport{In: in, Out: out})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
