package workload

import (
	"math"
	"testing"
)

func TestParseMix(t *testing.T) {
	good := map[string]Mix{
		"mixed":                        {80, 19, 1},
		"upsert":                       {0, 1, 0},
		"80/19/1":                      {80, 19, 1},
		" 50 / 50 / 0 ":                {50, 50, 0},
		"search=80,upsert=19,delete=1": {80, 19, 1},
		"upsert=3":                     {0, 3, 0},
		"search=0.5, delete=0.5":       {0.5, 0, 0.5},
	}
	for in, want := range good {
		got, err := ParseMix(in)
		if err != nil || got != want {
			t.Errorf("ParseMix(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "80/19", "80/19/1/0", "-1/1/1", "0/0/0", "search=-1", "search=x", "browse=1", "a/b/c", "NaN/1/1", "Inf/1/1", "fast"} {
		if m, err := ParseMix(in); err == nil {
			t.Errorf("ParseMix(%q) = %v; want an error", in, m)
		}
	}
}

func TestMixString(t *testing.T) {
	if s := DefaultMix.String(); s != "80/19/1" {
		t.Fatalf("DefaultMix.String() = %q", s)
	}
}

func TestStreamFollowsTheMix(t *testing.T) {
	const n = 200_000
	for _, mix := range []Mix{DefaultMix, {0, 1, 0}, {1, 0, 1}, {0, 0, 1}, {1, 1, 1}} {
		s := NewStream(1, 0, mix, 1000)
		var counts [NumOps]int
		seen := map[uint32]bool{}
		for range n {
			st := s.Next()
			counts[st.Op]++
			if st.Op != Search {
				if st.ID < 1 || st.ID > 1000 {
					t.Fatalf("ID %d outside 1..1000", st.ID)
				}
				seen[st.ID] = true
			}
		}
		for op := range counts {
			want := mix.Fraction(Op(op))
			got := float64(counts[op]) / n
			if want == 0 && counts[op] != 0 {
				t.Fatalf("mix %v: %s has weight 0 but ran %d times", mix, Op(op), counts[op])
			}
			// 5 standard deviations of a binomial proportion.
			if tol := 5 * math.Sqrt(want*(1-want)/n); math.Abs(got-want) > tol+1e-12 {
				t.Errorf("mix %v: %s fraction %.4f, want %.4f ± %.4f", mix, Op(op), got, want, tol)
			}
		}
		if mix[Upsert]+mix[Delete] > 0 && len(seen) != 1000 {
			t.Errorf("mix %v: %d of 1000 IDs drawn; want uniform over all", mix, len(seen))
		}
	}
}

func TestStreamsAreSeeded(t *testing.T) {
	a, b, c := NewStream(7, 3, DefaultMix, 100), NewStream(7, 3, DefaultMix, 100), NewStream(7, 4, DefaultMix, 100)
	same, differ := true, false
	for range 1000 {
		x, y, z := a.Next(), b.Next(), c.Next()
		same = same && x == y
		differ = differ || x != z
	}
	if !same {
		t.Error("two streams with one seed and user differ")
	}
	if !differ {
		t.Error("users 3 and 4 have the same stream")
	}
}

func TestOpNames(t *testing.T) {
	for _, op := range Ops() {
		got, err := ParseOp(op.String())
		if err != nil || got != op {
			t.Fatalf("ParseOp(%q) = %v, %v", op.String(), got, err)
		}
	}
}

func BenchmarkStreamNext(b *testing.B) {
	s := NewStream(1, 0, DefaultMix, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Next()
	}
}
