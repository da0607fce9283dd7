package typesense_test

import (
	"os"
	"testing"

	"github.com/searchbench/searchbench/engines/enginetest/apispec"
)

// TestMain checks every request this package's tests make the driver send
// to the fake, and every answer the fake gives, against Typesense's
// published OpenAPI document (package apispec).
func TestMain(m *testing.M) {
	os.Exit(apispec.Main(m, apispec.Typesense,
		apispec.Allow{Operation: "importDocuments", Contains: `response header Content-Type has unexpected value: "text/plain; charset=utf-8"`,
			Reason: "the document says application/octet-stream; the answer is JSON lines, which typesensefake labels text/plain as it says Typesense does (typesensefake/fake.go, reply.plain)"},
	))
}
