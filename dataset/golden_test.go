package dataset

// Bytes this generator produced for seed 1 (see TestGoldenBytes).
const (
	goldenName  = "Major section medical across page sign six son policy money security sort."
	goldenQuery = "Lot foot lot will."
	goldenHash  = "sha256:c49b0716b55f5cd159000eb349639df8b8569947f7de521a3f258ca95baebec2"
)

// goldenProduct is product 5 (version 0) of the seed-1 product corpus with
// 200 IDs and 16 dimensions: category, price, SKU, title, the first
// embedding value's bits, and the corpus hash (see TestProductGoldenBytes).
var goldenProduct = []string{"toys", "861.03", "TO-5", "Nearly employee dark word but any couple owner.", "be6eba42",
	"sha256:4d9a0f68490d0a0991ec749a5def0f59277103db37bce16979010019d9ad123e"}
