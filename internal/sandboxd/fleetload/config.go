package fleetload

import (
	"errors"
	"io"
	"time"
)

// Config is one load run.
type Config struct {
	Binary    string   // a ringfence binary (or a program that is one when run with Env)
	Env       []string // added to each server's environment
	ServeArgs []string // added to `serve` (e.g. --backend linux)
	Servers   int      // server processes (default 4)
	Clients   int      // concurrent clients per server (default 32)
	Duration  time.Duration
	Dir       string // where each server's root, HOME and TMPDIR go (default: a new temp dir, removed after)
	// FDSlack is how many more descriptors than after warm-up a server
	// may hold once the run's clients are gone: 0 by default, since the
	// warm-up made every kind of call and the runtime's lazily opened
	// descriptors are in the baseline.
	FDSlack      int
	LocalBackend string        // backend of the local Exec baseline (default linux)
	StartTimeout time.Duration // per server (default 60s)
	StopTimeout  time.Duration // SIGTERM to exit, per server (default 60s)
	SettleTime   time.Duration // after the run, how long leaks may take to go (default 15s)
	Log          io.Writer     // progress (default: none)
	// Inject, when set, runs once per server after the load and before
	// the leak checks: a test leaks something real through it (a held
	// connection, a background process, a mount) to prove the checks see
	// it. Its error fails the run.
	Inject func(ServerInfo) error
}

// ServerInfo is what Inject is told of one server.
type ServerInfo struct {
	N          int
	PID        int
	GRPC, REST string // host:port
	Root, Tmp  string // its --root-dir and its TMPDIR
}

func (c *Config) defaults() error {
	if c.Binary == "" {
		return errors.New("fleetload: Config.Binary (a ringfence binary) is required")
	}
	if c.Servers < 0 || c.Clients < 0 || c.Duration < 0 || c.FDSlack < 0 {
		return errors.New("fleetload: Servers, Clients, Duration and FDSlack must not be negative")
	}
	if c.Duration == 0 {
		return errors.New("fleetload: Config.Duration is required")
	}
	set := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	setD := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	set(&c.Servers, 4)
	set(&c.Clients, 32)
	setD(&c.StartTimeout, time.Minute)
	setD(&c.StopTimeout, time.Minute)
	setD(&c.SettleTime, 15*time.Second)
	if c.LocalBackend == "" {
		c.LocalBackend = "linux"
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

// Report is a run's figures and findings. Run's error is non-nil when
// Errors or Leaks are not empty.
type Report struct {
	Servers, Clients int
	Duration         time.Duration // of the load phase, as run
	Rounds           int           // mixed rounds completed (each: 7 calls plus a 404 GET)
	MinRounds        int           // fewest rounds any client completed
	Stats            []Stat
	Errors           []string // wrong results and failed calls (first 50)
	Leaks            []string // "server N: …"
	Notes            []string // facts that are not failures (host mount count moved, …)
}
