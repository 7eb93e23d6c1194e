package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/policy"
)

func main() {
	if ringfence.MaybeInternal() {
		return
	}
	ctx := context.Background()
	sb, err := ringfence.New(ringfence.Config{Root: os.Args[1], Backend: "linux"})
	if err != nil {
		panic(err)
	}
	defer sb.Close()
	s, err := sb.Session(ctx, policy.Request{})            // ringfence.SessionOptions: idle timeout, limits
	defer s.Close()                                          // every process, mount, cgroup and temp dir go
	srv, _ := s.Start(ctx, ringfence.Cmd{Argv: []string{"python3", "-m", "http.server", "8000"}, Timeout: -1})
	cli, _ := s.Start(ctx, ringfence.Cmd{Argv: []string{"curl", "-s", "127.0.0.1:8000"}})   // reaches srv
	repl, _ := s.Start(ctx, ringfence.Cmd{Argv: []string{"python3", "-i"}, Terminal: &ringfence.WindowSize{Rows: 24, Cols: 80}})
	repl.Write([]byte("6*7\n"))                              // repl.Stdout: the recent output, and how much was dropped
	repl.CloseStdin()                                        // on a terminal: Ctrl-D
	r, _ := repl.Wait(ctx)                                   // an *ExecResult, classified and narrated as Exec's
	_, _, _ = srv, cli, err
	fmt.Println(r.Kind, strings.Contains(r.Stdout, "42"))
}
