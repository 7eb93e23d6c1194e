package plantest

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

var update = flag.Bool("update-plan-golden", false, "rewrite the view plan equality goldens")

// Cases is how many random policies a golden covers.
const Cases = 400

// Golden runs out over Cases random policies (seeded by case number, so a
// golden names the case that changed) and compares a digest of each
// output with the file golden: the backend's translation of the view plan
// must stay what it was when the golden was recorded. With
// -update-plan-golden the file is rewritten.
func Golden(t *testing.T, golden string, out func(i int, r *rand.Rand, p *policy.Policy) string) {
	t.Helper()
	var lines []string
	for i := 0; i < Cases; i++ {
		r := rand.New(rand.NewSource(int64(i)))
		p := Policy(r)
		sum := sha256.Sum256([]byte(out(i, r, p)))
		lines = append(lines, fmt.Sprintf("%d %x", i, sum[:8]))
	}
	if *update {
		if err := os.WriteFile(golden, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatalf("%v (record it with -update-plan-golden)", err)
	}
	defer f.Close()
	var want []string
	for s := bufio.NewScanner(f); s.Scan(); {
		want = append(want, s.Text())
	}
	if len(want) != len(lines) {
		t.Fatalf("%s: %d cases, want %d", golden, len(lines), len(want))
	}
	bad := 0
	for i := range lines {
		if lines[i] != want[i] {
			r := rand.New(rand.NewSource(int64(i)))
			p := Policy(r)
			shown := *p
			t.Errorf("case %d changed: policy %+v\noutput now:\n%s", i, shown, out(i, r, p))
			if bad++; bad > 3 {
				t.FailNow()
			}
		}
	}
}
