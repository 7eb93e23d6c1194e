package policy

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// sizeUnits are binary multiples: a memory limit of "512M" is 512 MiB, as
// cgroups and ulimit read it.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}}

// ParseSize reads a byte count: a plain integer ("1048576") or an integer
// with a binary unit K, M, G or T, optionally followed by "i", "B" or "iB",
// in either case ("512M", "2GiB", "64kb"). Negative sizes and overflow are
// errors.
func ParseSize(s string) (int64, error) {
	num, shift := strings.TrimSpace(s), uint(0)
	upper := strings.ToUpper(num)
	upper = strings.TrimSuffix(strings.TrimSuffix(upper, "B"), "I")
	for _, u := range sizeUnits {
		if strings.HasSuffix(upper, u.suffix) {
			upper, shift = strings.TrimSuffix(upper, u.suffix), u.shift
			break
		}
	}
	num = strings.TrimSpace(upper)
	n, err := strconv.ParseInt(num, 10, 64)
	switch {
	case err != nil || num == "" || num[0] == '+':
		return 0, &InvalidError{Field: "size", Value: s, Reason: `want bytes or a number with K, M, G or T (e.g. "512M")`}
	case n < 0:
		return 0, &InvalidError{Field: "size", Value: s, Reason: "negative"}
	case n > math.MaxInt64>>shift:
		return 0, &InvalidError{Field: "size", Value: s, Reason: "too large"}
	}
	return n << shift, nil
}

// FormatSize writes n in the largest unit that divides it exactly, so
// ParseSize(FormatSize(n)) == n.
func FormatSize(n int64) string {
	for _, u := range sizeUnits {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseDuration reads a Go duration with a unit ("30s", "5m", "1h30m").
// A bare number is refused rather than guessed at, and so is a negative one.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, &InvalidError{Field: "duration", Value: s, Reason: `want a number with a unit (e.g. "30s", "5m")`}
	case d < 0:
		return 0, &InvalidError{Field: "duration", Value: s, Reason: "negative"}
	}
	return d, nil
}

// Duration is a time.Duration written as text ("30s") in policy files.
type Duration time.Duration

// UnmarshalText reads a duration with ParseDuration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// MarshalText writes the duration as time.Duration prints it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Size is a byte count written as text ("512M") or a plain integer in
// policy files.
type Size int64

// UnmarshalText reads a size with ParseSize.
func (s *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	*s = Size(v)
	return err
}

// MarshalText writes the size with FormatSize.
func (s Size) MarshalText() ([]byte, error) { return []byte(FormatSize(int64(s))), nil }

func timeOf(n int64) time.Duration { return time.Duration(n) }
