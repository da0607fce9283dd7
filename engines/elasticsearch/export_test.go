package elasticsearch

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
