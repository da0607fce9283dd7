package esfake

import (
	"fmt"
	"math"
	"slices"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// A dense_vector's similarity, as Elasticsearch 8.19 defines it for float
// vectors (DenseVectorFieldMapper.VectorSimilarity and
// ElementType.FLOAT.checkVectorMagnitude in
// server/…/index/mapper/vectors/DenseVectorFieldMapper.java; the _score
// formulas are the dense_vector reference's, "similarity",
// https://www.elastic.co/guide/en/elasticsearch/reference/8.19/dense-vector.html,
// and the specification's DenseVectorSimilarity that go-elasticsearch
// v8.19.7 carries in typedapi/types/enums/densevectorsimilarity).

// similarities are the values the similarity parameter takes, in the
// enum's order: the accepted values an unknown one's error lists
// (FieldMapper.Parameter.restrictedEnumParam prints EnumSet.allOf, the
// enum's toString lower-cased).
var similarities = []string{"l2_norm", "cosine", "dot_product", "max_inner_product"}

// unitEpsilon is DenseVectorFieldMapper.EPS: dot_product takes a float
// vector whose squared magnitude is within it of 1 (isNotUnitVector).
const unitEpsilon = 1e-3

// parseSimilarity reads the similarity parameter of an indexed vector; an
// absent one is cosine, the default of a float vector indexed by default
// (Builder's similarity supplier, index versions from 8.11).
func parseSimilarity(v any) (string, *esError) {
	if v == nil {
		return "cosine", nil
	}
	s := fmt.Sprint(v)
	if !slices.Contains(similarities, s) {
		return "", mapperError("Unknown value [%s] for field [similarity] - accepted values are [%s, %s, %s, %s]",
			s, similarities[0], similarities[1], similarities[2], similarities[3])
	}
	return s, nil
}

// magnitudeError is Elasticsearch's refusal of a vector the similarity
// cannot take, "" for one it can: cosine refuses a zero vector,
// dot_product one not of unit length; l2_norm and max_inner_product take
// any (checkVectorMagnitude is asked only for those two, of a query
// vector: createKnnFloatQuery). Documents and query vectors alike.
func magnitudeError(sim string, vec []float32) string {
	sq := fakekit.Dot(vec, vec)
	var msg string
	switch {
	case sim == "cosine" && sq == 0:
		msg = "The [cosine] similarity does not support vectors with zero magnitude."
	case sim == "dot_product" && math.Abs(float64(float32(sq))-1) > unitEpsilon:
		msg = "The [dot_product] similarity can only be used with unit-length vectors."
	default:
		return ""
	}
	return fmt.Sprintf("%s Preview of invalid vector: %v", msg, vec[:min(len(vec), 5)])
}

// similarityScore is a document's kNN _score for query vector q:
//
//   - cosine: (1 + cosine(q, v)) / 2
//   - dot_product: (1 + dot(q, v)) / 2 (unit vectors, so the same)
//   - l2_norm: 1 / (1 + l2_norm(q, v)²)
//   - max_inner_product: 1 / (1 + −1·dot) for a negative inner product,
//     dot + 1 otherwise, so that no score is negative
//
// (VectorSimilarity.score for FLOAT; Lucene's VectorSimilarityFunction
// EUCLIDEAN and MAXIMUM_INNER_PRODUCT, which score the HNSW search, give
// the same: 1 / (1 + squareDistance) and VectorUtil.scaleMaxInnerProductScore).
// Each is larger for a nearer vector, so the k highest are the k nearest.
func similarityScore(sim string, q, v []float32) float64 {
	switch sim {
	case "l2_norm":
		return 1 / (1 + fakekit.L2Squared(q, v))
	case "max_inner_product":
		dot := fakekit.Dot(q, v)
		if dot < 0 {
			return 1 / (1 + -1*dot)
		}
		return dot + 1
	case "dot_product":
		return (1 + fakekit.Dot(q, v)) / 2
	}
	return (1 + fakekit.Cosine(q, v)) / 2
}
