package vectorfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// TEXMEX's formats have no library: each record is a little-endian int32
// dimension d, then d elements (fvecs float32, ivecs int32, bvecs uint8).
// The whole file is read at once: the sets that come this way (SIFT1M's
// 500 MB base) fit in memory as the decoded vectors must anyway.

// openXvecs reads an fvecs or bvecs base, its queries and its ivecs truth.
func openXvecs(path string, opts Options) (*File, error) {
	if opts.Queries == "" || opts.Truth == "" {
		return nil, fmt.Errorf("vectorfile: %s: an fvecs/bvecs base needs its query file and its .ivecs ground truth named (Options.Queries, Options.Truth)", path)
	}
	train, err := readVectors(path)
	if err != nil {
		return nil, err
	}
	test, err := readVectors(opts.Queries)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(filepath.Ext(opts.Truth), ".ivecs") {
		return nil, fmt.Errorf("vectorfile: %s: the ground truth must be an .ivecs file", opts.Truth)
	}
	b, err := os.ReadFile(opts.Truth)
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %w", err)
	}
	truth, err := decodeIvecs(b)
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", opts.Truth, err)
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	return &File{Format: format, Train: train, Test: test, Neighbors: truth}, nil
}

// readVectors reads an .fvecs or .bvecs file.
func readVectors(path string) (Vectors, error) {
	decode := decodeFvecs
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".fvecs":
	case ".bvecs":
		decode = decodeBvecs
	default:
		return Vectors{}, fmt.Errorf("vectorfile: %s: vectors must be .fvecs or .bvecs, not %q", path, ext)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Vectors{}, fmt.Errorf("vectorfile: %w", err)
	}
	v, err := decode(b)
	if err != nil {
		return Vectors{}, fmt.Errorf("vectorfile: %s: %w", path, err)
	}
	return v, nil
}

func decodeFvecs(b []byte) (Vectors, error) {
	dim, data, err := decodeXvecs(b, 4, func(e []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(e)) })
	return Vectors{Dim: dim, Data: data}, err
}

func decodeBvecs(b []byte) (Vectors, error) {
	dim, data, err := decodeXvecs(b, 1, func(e []byte) float32 { return float32(e[0]) })
	return Vectors{Dim: dim, Data: data}, err
}

// decodeIvecs reads ivecs rows as ints: a ground truth's train indexes.
func decodeIvecs(b []byte) ([][]int, error) {
	dim, data, err := decodeXvecs(b, 4, func(e []byte) int { return int(int32(binary.LittleEndian.Uint32(e))) })
	if err != nil {
		return nil, err
	}
	rows := make([][]int, len(data)/dim)
	for i := range rows {
		rows[i] = data[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return rows, nil
}

// decodeXvecs checks that b is whole records of one positive dimension,
// each of size-byte elements, and returns that dimension and every
// element, record after record, through elem.
func decodeXvecs[T any](b []byte, size int, elem func([]byte) T) (int, []T, error) {
	if len(b) == 0 {
		return 0, nil, errors.New("no records")
	}
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("record 0 is truncated: %d of its dimension's 4 bytes", len(b))
	}
	d := int32(binary.LittleEndian.Uint32(b))
	if d <= 0 {
		return 0, nil, fmt.Errorf("record 0 has dimension %d", d)
	}
	dim := int(d)
	record := 4 + dim*size
	for i, off := 0, 0; off < len(b); i, off = i+1, off+record {
		rest := len(b) - off
		if rest < 4 {
			return 0, nil, fmt.Errorf("record %d is truncated: %d of its dimension's 4 bytes", i, rest)
		}
		if got := int32(binary.LittleEndian.Uint32(b[off:])); got != d {
			return 0, nil, fmt.Errorf("record %d has dimension %d, record 0 has %d", i, got, d)
		}
		if rest < record {
			return 0, nil, fmt.Errorf("record %d is truncated: %d of its %d bytes", i, rest, record)
		}
	}
	n := len(b) / record
	out := make([]T, 0, n*dim)
	for off := 0; off < len(b); off += record {
		for e := off + 4; e < off+record; e += size {
			out = append(out, elem(b[e:e+size]))
		}
	}
	return dim, out, nil
}
