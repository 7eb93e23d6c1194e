package execpolicy

import "testing"

// BenchmarkClassify measures a typical agent pipeline: a login shell, a
// directory change, a test run, a tee to a file and a filter.
func BenchmarkClassify(b *testing.B) {
	argv := []string{"bash", "-lc", "cd web && npm test 2>&1 | tee test.log | grep -E 'FAIL|ok' | head -50"}
	b.ReportAllocs()
	for b.Loop() {
		Classify(argv)
	}
}

// BenchmarkClassifyArgv measures a plain argv with no shell.
func BenchmarkClassifyArgv(b *testing.B) {
	argv := []string{"git", "log", "--oneline", "-20"}
	b.ReportAllocs()
	for b.Loop() {
		Classify(argv)
	}
}
