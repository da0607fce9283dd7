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
)

var errProtocol = errors.New("Protocol error")

// readCommand reads one request: a RESP array of bulk strings, as every
// client sends (inline commands are not modelled).
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := readLine(r)
	if err != nil || line == "" {
		return nil, err
	}
	n, err := strconv.Atoi(line[1:])
	if line[0] != '*' || err != nil || n > maxArgs {
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
		switch {
		case err != nil:
			return nil, err
		case len(buf) < size+2:
			return nil, io.ErrUnexpectedEOF
		case buf[size] != '\r' || buf[size+1] != '\n':
			return nil, fmt.Errorf("%w: bulk string not terminated", errProtocol)
		}
		args = append(args, string(buf[:size]))
	}
	return args, nil
}

func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

// writer encodes RESP3 replies.
type writer struct{ *bufio.Writer }

func (w writer) simple(s string) { w.WriteString("+" + s + "\r\n") }

// err writes an error reply. s is the whole message including its code: a
// server error is "ERR …" or "WRONGPASS …"; valkey-search replies with its
// message alone (ValkeyModule_ReplyWithError with the status text).
func (w writer) err(s string) {
	w.WriteString("-" + strings.NewReplacer("\r", " ", "\n", " ").Replace(s) + "\r\n")
}

func (w writer) bulk(s string) { w.WriteString("$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n") }

// list is a reply array of string, int, int64, []string, list or dict
// items: a reply built as a value has its lengths right by construction.
type list []any

// dict is a RESP3 map reply, its keys and values alternating.
type dict []any

func (w writer) value(v any) {
	switch x := v.(type) {
	case string:
		w.bulk(x)
	case int:
		w.value(int64(x))
	case int64:
		w.WriteString(":" + strconv.FormatInt(x, 10) + "\r\n")
	case []string:
		w.WriteString("*" + strconv.Itoa(len(x)) + "\r\n")
		for _, s := range x {
			w.bulk(s)
		}
	case list:
		w.WriteString("*" + strconv.Itoa(len(x)) + "\r\n")
		for _, item := range x {
			w.value(item)
		}
	case dict:
		w.WriteString("%" + strconv.Itoa(len(x)/2) + "\r\n")
		for _, item := range x {
			w.value(item)
		}
	default:
		panic(fmt.Sprintf("valkeyfake: cannot encode %T", v))
	}
}
