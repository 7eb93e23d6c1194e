package execpolicy

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type corpusCase struct {
	line    int
	cap     Capability
	outcome Outcome
	text    string
	argv    []string
}

// loadCorpus reads testdata/corpus.tsv (format described in its header).
func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.SplitN(line, "\t", 3)
		if len(cols) != 3 {
			t.Fatalf("corpus line %d: want 3 tab-separated columns", n)
		}
		c := corpusCase{line: n, text: cols[2]}
		if err := c.cap.UnmarshalText([]byte(cols[0])); err != nil {
			t.Fatalf("corpus line %d: %v", n, err)
		}
		if err := c.outcome.UnmarshalText([]byte(cols[1])); err != nil {
			t.Fatalf("corpus line %d: %v", n, err)
		}
		if js, ok := strings.CutPrefix(c.text, "argv "); ok {
			if err := json.Unmarshal([]byte(js), &c.argv); err != nil {
				t.Fatalf("corpus line %d: %v", n, err)
			}
		} else {
			c.argv = []string{"bash", "-lc", strings.ReplaceAll(c.text, "⏎", "\n")}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	perCap := map[Capability]int{}
	for _, c := range cases {
		perCap[c.cap]++
		got := Classify(c.argv)
		if got.Capability != c.cap || got.Outcome != c.outcome {
			t.Errorf("line %d: %s\n\tgot %s/%s (%s: %s), want %s/%s", c.line, c.text,
				got.Capability, got.Outcome, got.Program, got.Reason, c.cap, c.outcome)
		}
		checkInvariants(t, c.text, got)
	}
	if len(cases) < 300 {
		t.Errorf("corpus has %d commands, want at least 300", len(cases))
	}
	for i := range numCapabilities {
		if perCap[Capability(i)] < 10 {
			t.Errorf("corpus has %d %s commands, want at least 10", perCap[Capability(i)], Capability(i))
		}
	}
	t.Logf("corpus: %d commands; per capability: %v; table knows %d programs", len(cases), perCap, knownPrograms())
}

// checkInvariants holds for every classification: the verdict is the
// riskiest part's, the outcome is the table's (or a rule's), and an
// unknown is never allowed.
func checkInvariants(t testing.TB, what string, c Classification) {
	t.Helper()
	if r := c.Riskiest(); r.Outcome != c.Outcome || r.Capability != c.Capability {
		t.Errorf("%q: top %s/%s but riskiest part %s/%s", what, c.Capability, c.Outcome, r.Capability, r.Outcome)
	}
	var walk func(Classification)
	walk = func(p Classification) {
		if p.Capability == Unknown && p.Outcome < AskApproval {
			t.Errorf("%q: an unknown part is %s", what, p.Outcome)
		}
		for _, q := range p.Parts {
			walk(q)
		}
	}
	walk(c)
}

// The classifier is shared by every caller: classify the corpus from
// several goroutines at once (go test -race checks nothing is shared).
func TestConcurrentClassify(t *testing.T) {
	cases := loadCorpus(t)
	cl, err := Config{Rules: []Rule{{Prefix: []string{"mytool"}, Decision: "allow"}}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := g; i < len(cases); i += 2 {
				cl.Classify(cases[i].argv)
				Classify(cases[i].argv)
			}
		}()
	}
	for range 4 {
		<-done
	}
}
