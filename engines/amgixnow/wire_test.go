package amgixnow

import "testing"

// Both of Amgix's wordings for a missing document mark a 404 as NotFound;
// nothing else does.
func TestDocumentMissing(t *testing.T) {
	for body, want := range map[string]bool{
		`{"detail":"Documents not found for document_ids: 7"}`:           true,
		`{"detail":"Document '7' not found"}`:                            true,
		`{"detail":"Collection 'c' not found"}`:                          false,
		`{"detail":"Configuration not found for 'amgix_c'"}`:             false,
		`{"detail":[{"msg":"Documents not found for document_ids: 7"}]}`: false,
		``: false,
		`Documents not found for document_ids: 7`: false,
	} {
		if got := documentMissing([]byte(body)); got != want {
			t.Errorf("documentMissing(%s) = %v; want %v", body, got, want)
		}
	}
}
