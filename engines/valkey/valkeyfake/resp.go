package valkeyfake

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits the reader enforces, as a real server bounds its query buffer: a
// malformed or hostile request is a protocol error, never an allocation of
// whatever size it announces.
const (
	maxArgs     = 1 << 20
	maxBulkSize = 512 << 20
	maxInline   = 64 << 10
)

var errProtocol = errors.New("Protocol error")

// readCommand reads one request: a RESP array of bulk strings, as every
// client sends, or an inline command (what `PING\r\n` from a readiness probe
// is).
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	if line == "" {
		return nil, nil
	}
	if line[0] != '*' {
		if len(line) > maxInline {
			return nil, fmt.Errorf("%w: too big inline request", errProtocol)
		}
		return strings.Fields(line), nil
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n > maxArgs {
		return nil, fmt.Errorf("%w: invalid multibulk length", errProtocol)
	}
	args := make([]string, 0, min(max(n, 0), 64))
	for range n {
		h, err := readLine(r)
		if err != nil {
			return nil, err
		}
		if h == "" || h[0] != '$' {
			return nil, fmt.Errorf("%w: expected '$', got '%.1s'", errProtocol, h)
		}
		size, err := strconv.Atoi(h[1:])
		if err != nil || size < 0 || size > maxBulkSize {
			return nil, fmt.Errorf("%w: invalid bulk length", errProtocol)
		}
		// Read what arrives rather than allocate what is announced.
		buf, err := io.ReadAll(io.LimitReader(r, int64(size)+2))
		if err != nil {
			return nil, err
		}
		if len(buf) < size+2 {
			return nil, io.ErrUnexpectedEOF
		}
		if buf[size] != '\r' || buf[size+1] != '\n' {
			return nil, fmt.Errorf("%w: bulk string not terminated", errProtocol)
		}
		args = append(args, string(buf[:size]))
	}
	return args, nil
}

func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// writer encodes replies in the connection's protocol: RESP2 until the
// client says HELLO 3, then RESP3 (maps and nulls get their own types).
type writer struct {
	w     *bufio.Writer
	proto int
}

func (w *writer) simple(s string) { w.w.WriteString("+" + s + "\r\n") }

// err writes an error reply. s is the whole message including its code: a
// server error is "ERR …" or "WRONGPASS …"; valkey-search replies with its
// message alone (ValkeyModule_ReplyWithError with the status text), so its
// first word is whatever the message starts with.
func (w *writer) err(s string) {
	w.w.WriteString("-" + strings.NewReplacer("\r", " ", "\n", " ").Replace(s) + "\r\n")
}

func (w *writer) int(n int64) { w.w.WriteString(":" + strconv.FormatInt(n, 10) + "\r\n") }

func (w *writer) bulk(s string) {
	w.w.WriteString("$" + strconv.Itoa(len(s)) + "\r\n")
	w.w.WriteString(s)
	w.w.WriteString("\r\n")
}

func (w *writer) array(n int) { w.w.WriteString("*" + strconv.Itoa(n) + "\r\n") }

// list is a reply array; its items are string, int, int64, []string, list
// or dict. Building a reply as a value keeps its lengths right by
// construction.
type list []any

// dict is a map reply, its keys and values alternating: a RESP3 map, or a
// flat array in RESP2.
type dict []any

func (w *writer) value(v any) {
	switch x := v.(type) {
	case string:
		w.bulk(x)
	case int:
		w.int(int64(x))
	case int64:
		w.int(x)
	case []string:
		w.array(len(x))
		for _, s := range x {
			w.bulk(s)
		}
	case list:
		w.array(len(x))
		for _, item := range x {
			w.value(item)
		}
	case dict:
		if w.proto != 3 {
			w.value(list(x))
			return
		}
		w.w.WriteString("%" + strconv.Itoa(len(x)/2) + "\r\n")
		for _, item := range x {
			w.value(item)
		}
	default:
		panic(fmt.Sprintf("valkeyfake: cannot encode %T", v))
	}
}
