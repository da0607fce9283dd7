package vectorfile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"path/filepath"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/dataset/neighbours"
)

// Products is the product corpus whose embeddings are f's train vectors
// and whose kNN queries are f's test vectors (dataset.NewProductsFromVectors
// says how ids map to vectors). name is the path the file was opened
// from; the corpus's generator, hence its hash and provenance, names its
// base name, format, distance, counts and Digest, so that two results on
// different files never merge. The corpus is indexed and scored by the
// file's own distance (File.Metric), so a file that names none is
// refused: a guessed metric's exact answers would not be the truth.
func Products(f *File, name string, cfg dataset.Config, mix dataset.QueryMix) (*dataset.Products, error) {
	if _, err := f.Metric(); err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", name, err)
	}
	id := fmt.Sprintf("%s %s %s train=%d test=%d k=%d %s",
		filepath.Base(name), f.Format, f.Distance, f.Train.Len(), f.Test.Len(), f.K(), f.Digest())
	p, err := dataset.NewProductsFromVectors(cfg, dataset.Vectors{Name: id, Dim: f.Train.Dim, Train: f.Train.Data, Test: f.Test.Data}, mix)
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", name, err)
	}
	return p, nil
}

// Digest is a SHA-256 of what the file states, whatever its format: the
// format, the distance, the train and test vectors (dimension, then each
// value's float32 bits), the neighbour lists and the distances. It reads
// every value, once per run: BenchmarkDigest gave 160 to 430 MB/s on a
// loaded 2-core machine, 9 to 24 s for a million 960-dimensional vectors.
func (f *File) Digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", f.Format, f.Distance)
	w := digestWriter{h: h, buf: make([]byte, 0, digestBuffer)}
	for _, v := range []Vectors{f.Train, f.Test} {
		w.uint32(uint32(v.Dim))
		w.uint32(uint32(v.Len()))
		w.floats(v.Data)
	}
	for _, row := range f.Neighbors {
		for _, j := range row {
			w.uint32(uint32(j))
		}
	}
	w.uint32(uint32(len(f.Distances)))
	for _, row := range f.Distances {
		w.floats(row)
	}
	w.flush()
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// digestWriter feeds a hash little-endian words a buffer at a time: one
// Write per value would cost more than the hash itself.
type digestWriter struct {
	h   hash.Hash
	buf []byte
}

// digestBuffer is the bytes a digestWriter hands the hash at a time.
const digestBuffer = 1 << 16

func (w *digestWriter) uint32(x uint32) {
	w.buf = binary.LittleEndian.AppendUint32(w.buf, x)
	if len(w.buf) >= digestBuffer {
		w.flush()
	}
}

// floats is uint32 of each value's bits, a buffer's worth per pass.
func (w *digestWriter) floats(xs []float32) {
	for len(xs) > 0 {
		n := min(len(xs), (cap(w.buf)-len(w.buf))/4)
		if n == 0 {
			w.flush()
			continue
		}
		b := w.buf[len(w.buf) : len(w.buf)+4*n]
		for i, x := range xs[:n] {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		w.buf, xs = w.buf[:len(w.buf)+4*n], xs[n:]
	}
}

func (w *digestWriter) flush() {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
}

// Answer is the harness's exact answer to one query of a corpus that
// Products built from the file: the query and its exact neighbours as
// product IDs (train index + 1), nearest first, as neighbours.Exact
// returns them over the corpus's pre-populated products.
type Answer struct {
	Query dataset.ProductQuery
	Exact []neighbours.Neighbour
}

// CheckAnswers compares the harness's exact answers over p, a corpus that
// Products built from f, with f's stated neighbours: a truth nobody here
// computed. Only a query with no filter whose vector is a test vector
// (ProductQuery.TestVector) can be compared, and only when p holds every
// train vector before the run (its IDs are the train count, all
// pre-populated); other answers are passed over, and a corpus where the
// comparison cannot hold, or one that Products did not build from f (the
// very File, its vectors shared), is an error. Each answer is compared
// over the first min(f.K(), len(Exact)) neighbours by the tie rule of
// Check. The report's queries are test vector indexes.
func (f *File) CheckAnswers(p *dataset.Products, answers []Answer) (Report, error) {
	if v := p.Vectors(); v == nil || &v.Train[0] != &f.Train.Data[0] || &v.Test[0] != &f.Test.Data[0] {
		return Report{}, errors.New("vectorfile: the corpus was not built from this file")
	}
	if p.IDs() != f.Train.Len() || p.PrepopulatedCount() != p.IDs() {
		return Report{}, fmt.Errorf("vectorfile: the file's neighbours are the truth of all %d train vectors; the corpus pre-populates %d of %d",
			f.Train.Len(), p.PrepopulatedCount(), p.IDs())
	}
	m, err := f.Metric()
	if err != nil {
		return Report{}, fmt.Errorf("vectorfile: %w", err)
	}
	r := Report{}
	for _, a := range answers {
		j, ok := a.Query.TestVector()
		if !ok || len(a.Query.Query().Filters) > 0 || len(a.Exact) == 0 {
			continue
		}
		k := min(f.K(), len(a.Exact))
		r.Queries++
		r.K = max(r.K, k)
		exact := make([]neighbours.Neighbour, k)
		for i, n := range a.Exact[:k] {
			exact[i] = neighbours.Neighbour{ID: n.ID - 1, Distance: n.Distance}
		}
		r.add(j, f.Neighbors[j][:k], exact, f.agrees(m, j, f.Neighbors[j][:k], exact))
	}
	return r, nil
}
