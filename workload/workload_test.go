package workload

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"
)

func TestStreamFollowsTheMix(t *testing.T) {
	const n = 200_000
	for _, mix := range []Mix{DefaultMix, {0, 1, 0}, {1, 0, 1}, {0, 0, 1}, {1, 1, 1}, {Get: 1}, {Search: 7, Get: 1, Upsert: 2}, {1, 1, 1, 1}} {
		s := NewStream(1, 0, mix, 1000)
		var counts [NumOps]int
		seen := map[uint32]bool{}
		for range n {
			st := s.Next()
			counts[st.Op]++
			if spec, _ := st.Op.Spec(); spec.ByID {
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
		if mix[Upsert]+mix[Delete]+mix[Get] > 0 && len(seen) != 1000 {
			t.Errorf("mix %v: %d of 1000 IDs drawn; want uniform over all", mix, len(seen))
		}
	}
}

// A mix's steps are fixed by its seed: for every mix without get, the
// digest of 3 users × 10,000 steps is pinned, so an operation added to the
// table leaves what the mixes without it draw unchanged.
func TestStreamGolden(t *testing.T) {
	for _, c := range []struct {
		mix  Mix
		want uint64
	}{
		{DefaultMix, 0x1b1edd86864c44d6},
		{Presets["upsert"], 0xd4478d90327612aa},
		{Presets["search"], 0xe6d65a34d2ebae91},
		{Mix{Search: 1, Upsert: 1, Delete: 1}, 0xb5bed1ddb657230a},
		{Mix{Upsert: 3, Delete: 1}, 0x832b15b156dece05},
		{Mix{Search: 50, Delete: 50}, 0xf455cc6d36eafdde},
	} {
		h := fnv.New64a()
		for u := range 3 {
			s := NewStream(42, u, c.mix, 100_000)
			for range 10_000 {
				st := s.Next()
				var b [13]byte
				b[0] = byte(st.Op)
				binary.LittleEndian.PutUint32(b[1:], st.ID)
				binary.LittleEndian.PutUint64(b[5:], st.Query)
				h.Write(b[:])
			}
		}
		if got := h.Sum64(); got != c.want {
			t.Errorf("mix %s: steps digest %#x, want %#x: the mix's sequence changed", c.mix, got, c.want)
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

func TestOpNamesRoundTrip(t *testing.T) {
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
