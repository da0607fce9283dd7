package elasticsearch

import "github.com/searchbench/searchbench/engines"

// The response parsers, for the fuzz targets and the parser tests.
var (
	ParseSearch     = parseSearch
	ParseBulk       = parseBulk
	ParseWrite      = parseWrite
	ParseCount      = parseCount
	ParseInfo       = parseInfo
	ParseCreated    = parseCreated
	ParseShardsOnly = parseShardsOnly
	ResponseError   = responseError
)

// ParseGet reads a get answer for id in an index of schema.
func ParseGet(status int, body []byte, id string, schema engines.Schema) (engines.Document, error) {
	o, err := parseOptions(nil)
	if err != nil {
		return engines.Document{}, err
	}
	m, err := newMapping(schema, o)
	if err != nil {
		return engines.Document{}, err
	}
	return m.parseGet(status, body, id)
}
