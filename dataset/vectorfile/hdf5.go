package vectorfile

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/scigolib/hdf5"
)

// openHDF5 reads an ann-benchmarks file: datasets train and test (n×d
// float32), neighbors (q×k 0-based train indexes) and, when present,
// distances (q×k), and the root attribute distance.
func openHDF5(path string) (*File, error) {
	h, err := hdf5.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", path, err)
	}
	defer h.Close()
	f, err := readHDF5(h)
	if err != nil {
		return nil, fmt.Errorf("vectorfile: %s: %w", path, err)
	}
	return f, nil
}

func readHDF5(h *hdf5.File) (*File, error) {
	f := &File{Format: "hdf5"}
	attrs, err := h.Root().Attributes()
	if err != nil {
		return nil, err
	}
	for _, a := range attrs {
		if a.Name != "distance" {
			continue
		}
		v, err := a.ReadValue()
		if err != nil {
			return nil, fmt.Errorf("attribute distance: %w", err)
		}
		name, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("attribute distance is %T, not a string", v)
		}
		if f.Distance, err = metric(name); err != nil {
			return nil, err
		}
	}
	sets := map[string]*hdf5.Dataset{}
	for _, c := range h.Root().Children() {
		if ds, ok := c.(*hdf5.Dataset); ok {
			sets[ds.Name()] = ds
		}
	}
	for _, name := range []string{"train", "test", "neighbors"} {
		if sets[name] == nil {
			return nil, fmt.Errorf("no dataset %q", name)
		}
	}
	toFloat := func(x float64) float32 { return float32(x) }
	if f.Train.Dim, f.Train.Data, err = matrix(sets["train"], toFloat); err != nil {
		return nil, err
	}
	if f.Test.Dim, f.Test.Data, err = matrix(sets["test"], toFloat); err != nil {
		return nil, err
	}
	k, flat, err := matrix(sets["neighbors"], func(x float64) int { return int(x) })
	if err != nil {
		return nil, err
	}
	f.Neighbors = split(flat, k)
	if ds := sets["distances"]; ds != nil {
		k, flat, err := matrix(ds, toFloat)
		if err != nil {
			return nil, err
		}
		f.Distances = split(flat, k)
	}
	return f, nil
}

// split cuts flat into rows of k, sharing its memory.
func split[T any](flat []T, k int) [][]T {
	if k == 0 {
		return nil
	}
	rows := make([][]T, len(flat)/k)
	for i := range rows {
		rows[i] = flat[i*k : (i+1)*k : (i+1)*k]
	}
	return rows
}

// hdf5Block is how many values matrix reads at a time: the library hands
// every value over as a float64, and a block bounds that copy to 8 MB
// instead of twice the size of a train set.
const hdf5Block = 1 << 20

// shape2D reads a dataset's shape from its description: v0.14.1 of the
// library has no public accessor for a contiguous dataset's dimensions.
var shape2D = regexp.MustCompile(`\b2D array \[(\d+) x (\d+)\]`)

// matrix reads a 2-D dataset's column count and its values, row after
// row, through conv.
func matrix[T any](ds *hdf5.Dataset, conv func(float64) T) (int, []T, error) {
	info, err := ds.Info()
	if err != nil {
		return 0, nil, fmt.Errorf("dataset %s: %w", ds.Name(), err)
	}
	m := shape2D.FindStringSubmatch(info)
	if m == nil {
		return 0, nil, fmt.Errorf("dataset %s is not a 2-D array: %s", ds.Name(), info)
	}
	rows, err1 := strconv.ParseUint(m[1], 10, 63)
	cols, err2 := strconv.ParseUint(m[2], 10, 31)
	if err1 != nil || err2 != nil || cols == 0 {
		return 0, nil, fmt.Errorf("dataset %s: shape %s×%s", ds.Name(), m[1], m[2])
	}
	out := make([]T, 0, rows*cols)
	step := max(1, hdf5Block/cols)
	for r := uint64(0); r < rows; r += step {
		n := min(step, rows-r)
		v, err := ds.ReadSlice([]uint64{r, 0}, []uint64{n, cols})
		if err != nil {
			return 0, nil, fmt.Errorf("dataset %s, rows %d to %d: %w", ds.Name(), r, r+n, err)
		}
		vals, ok := v.([]float64)
		if !ok || uint64(len(vals)) != n*cols {
			return 0, nil, fmt.Errorf("dataset %s, rows %d to %d: %d values of %T", ds.Name(), r, r+n, len(vals), v)
		}
		for _, x := range vals {
			out = append(out, conv(x))
		}
	}
	return int(cols), out, nil
}
