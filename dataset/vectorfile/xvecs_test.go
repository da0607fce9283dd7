package vectorfile

import (
	"encoding/binary"
	"math"
	"os"
	"slices"
	"testing"
)

// encodeXvecs writes rows as xvecs records of size-byte elements: the
// inverse of decodeXvecs, for the fuzz target and the malformed inputs.
func encodeXvecs[T any](rows [][]T, size int, put func([]byte, T)) []byte {
	var b []byte
	for _, r := range rows {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
		for _, x := range r {
			e := make([]byte, size)
			put(e, x)
			b = append(b, e...)
		}
	}
	return b
}

func putFloat(e []byte, x float32) { binary.LittleEndian.PutUint32(e, math.Float32bits(x)) }
func putInt(e []byte, x int)       { binary.LittleEndian.PutUint32(e, uint32(int32(x))) }
func putByte(e []byte, x float32)  { e[0] = byte(x) }

func fvecs(v Vectors) []byte { return encodeXvecs(split(v.Data, v.Dim), 4, putFloat) }

// FuzzXvecs decodes any bytes as each of the three formats: a decoder
// either refuses them or accounts for every byte, so that writing back
// what it read gives the input again.
func FuzzXvecs(f *testing.F) {
	for _, name := range []string{"query.fvecs", "groundtruth.ivecs", "query.bvecs"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)-1])
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{1, 0, 0, 0, 7, 2, 0, 0, 0, 8, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := decodeFvecs(b); err == nil {
			if got := fvecs(v); !slices.Equal(got, b) {
				t.Fatalf("fvecs: %d bytes read back as %d", len(b), len(got))
			}
		}
		if v, err := decodeBvecs(b); err == nil {
			if got := encodeXvecs(split(v.Data, v.Dim), 1, putByte); !slices.Equal(got, b) {
				t.Fatalf("bvecs: %d bytes read back as %d", len(b), len(got))
			}
		}
		if rows, err := decodeIvecs(b); err == nil {
			if got := encodeXvecs(rows, 4, putInt); !slices.Equal(got, b) {
				t.Fatalf("ivecs: %d bytes read back as %d", len(b), len(got))
			}
		}
	})
}
