package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/local"
)

// client talks to the StreamOps API, local or deployed.
type client struct {
	base  string
	token string
	http  *http.Client
}

// newCommand is a subcommand's flag set, writing its errors and help to
// stderr, with -url and -token (see clientFlags); usage, when set, heads
// its help.
func newCommand(name, usage string, stderr io.Writer) (*flag.FlagSet, func() (*client, error)) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() {
			fmt.Fprintln(stderr, usage)
			fs.PrintDefaults()
		}
	}
	return fs, clientFlags(fs)
}

// parseClient parses args into fs and builds the client its flags name.
func parseClient(fs *flag.FlagSet, args []string, newClient func() (*client, error)) (*client, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return newClient()
}

// clientFlags registers -url and -token on fs and returns the client they
// build once fs is parsed.
func clientFlags(fs *flag.FlagSet) func() (*client, error) {
	base := fs.String("url", envOr("STREAMOPS_URL", "http://"+local.DefaultHTTPAddr),
		"base URL of the API: the local stack, or a deployment's ApiEndpoint (env STREAMOPS_URL)")
	token := fs.String("token", "", "bearer token (env STREAMOPS_ADMIN_TOKEN; a deployed API takes a JWT)")
	return func() (*client, error) {
		t := *token
		if t == "" {
			t = envOr("STREAMOPS_ADMIN_TOKEN", "")
		}
		if t == "" {
			return nil, errors.New("no token: pass -token or set STREAMOPS_ADMIN_TOKEN (make run prints it)")
		}
		u, err := url.Parse(*base)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("-url %q is not a URL such as http://127.0.0.1:8080", *base)
		}
		return &client{base: strings.TrimRight(*base, "/"), token: t, http: &http.Client{Timeout: 60 * time.Second}}, nil
	}
}

// apiError is an error answer of the API: {"error":{"code","message","field"}}.
type apiError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

func (e *apiError) Error() string {
	msg := fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
	if e.Field != "" {
		msg += " (field " + e.Field + ")"
	}
	return msg
}

// do sends method path with body (JSON-encoded when not nil) and decodes a
// 2xx JSON answer into out (when not nil). Other answers become an
// *apiError.
func (c *client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	return c.doWith(ctx, method, path, query, nil, body, out)
}

// doWith is do sending header's fields too (an Idempotency-Key).
func (c *client) doWith(ctx context.Context, method, path string, query url.Values, header http.Header, body, out any) error {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error   apiError `json:"error"`
			Message string   `json:"message"` // API Gateway's own answers
		}
		_ = json.Unmarshal(raw, &e)
		ae := e.Error
		ae.Status = resp.StatusCode
		if ae.Code == "" {
			ae.Code, ae.Message = http.StatusText(resp.StatusCode), strings.TrimSpace(string(raw))
			if e.Message != "" {
				ae.Message = e.Message
			}
		}
		return &ae
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the expected JSON: %w", method, path, err)
	}
	return nil
}
