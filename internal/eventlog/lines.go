package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// Lines decodes, from a JSON log (one object a line, as slog's JSON
// handler writes it), the lines whose msg is msg, each as a T, in order;
// lines that are not JSON objects are passed over. It is how tests and
// tools read seed 003's lines back.
func Lines[T any](log []byte, msg string) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var head struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &head) != nil || head.Msg != msg {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, sc.Err()
}
