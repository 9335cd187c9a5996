package tracing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// httpClient is the transport of the SDK's OTLP trace exporter
// (otlptrace.New): it POSTs each batch to an OTLP/HTTP receiver as
// binary protobuf.
//
// Why not otlptracehttp: that package imports the OTLP collector service
// package for the request's message type, and with it gRPC and the
// grpc-gateway runtime, whose package initialisers run at every cold start
// and which grew each function's bootstrap by 10 MB, tracing on or off.
// The exporter, the span conversion and the span messages are the SDK's
// (otlptrace, proto/otlp/trace/v1); this client only frames the request:
// ExportTraceServiceRequest is `repeated ResourceSpans resource_spans = 1`.
type httpClient struct {
	url    string
	client *http.Client
}

// newOTLPExporter is the SDK's OTLP exporter sending to endpoint's
// /v1/traces.
func newOTLPExporter(endpoint string) (*otlptrace.Exporter, error) {
	return otlptrace.New(context.Background(), &httpClient{url: endpoint + "/v1/traces",
		client: &http.Client{Timeout: 10 * time.Second}})
}

// Start implements otlptrace.Client.
func (c *httpClient) Start(context.Context) error { return nil }

// Stop implements otlptrace.Client.
func (c *httpClient) Stop(context.Context) error {
	c.client.CloseIdleConnections()
	return nil
}

// resourceSpansField is resource_spans' field number in
// ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1).
const resourceSpansField = 1

// UploadTraces implements otlptrace.Client: one POST, no retry. On
// Lambda the receiver is the ADOT collector on the same instance, and a
// lost batch costs spans, never work.
func (c *httpClient) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	var body []byte
	for _, rs := range spans {
		b, err := proto.Marshal(rs)
		if err != nil {
			return fmt.Errorf("tracing: encode spans: %w", err)
		}
		body = protowire.AppendTag(body, resourceSpansField, protowire.BytesType)
		body = protowire.AppendBytes(body, b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("tracing: export spans: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("tracing: export spans: %s answered %s", c.url, resp.Status)
	}
	return nil
}
