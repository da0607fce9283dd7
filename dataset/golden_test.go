package dataset

// Bytes this generator produced for seed 1 (see TestGoldenBytes).
const (
	goldenName  = "Major section medical across page sign six son policy money security sort."
	goldenQuery = "Lot foot lot will."
	goldenHash  = "sha256:c49b0716b55f5cd159000eb349639df8b8569947f7de521a3f258ca95baebec2"
)
