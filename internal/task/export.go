package task

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/store"
)

// DocumentSource reads the documents of an export; *store.Store implements
// it (store.ExportDocuments).
type DocumentSource interface {
	ExportDocuments(ctx context.Context, q store.ExportQuery) ([]json.RawMessage, error)
}

// exportData is the data of a data_export task.
type exportData struct {
	// Collection is one of store.ExportableCollections.
	Collection string `json:"collection"`
	// Format is "json" (an array, the default) or "csv".
	Format string `json:"format"`
	// Filter matches fields to string values.
	Filter map[string]string `json:"filter"`
	Limit  int               `json:"limit"`
	// Destination is s3://bucket/key or a key; default
	// exports/<collection>/<taskId>.<format>.
	Destination string `json:"destination"`
}

func init() {
	registerExecutor(events.TaskDataExport, func(b Backends, st ReadStore) Executor {
		return DataExportExecutor{Source: st, Objects: b.Objects}
	})
}

// DataExportExecutor runs data_export tasks: it reads documents of an
// exportable collection and stores them as JSON or CSV.
type DataExportExecutor struct {
	Source  DocumentSource
	Objects objects.Store
}

// Execute exports. A collection that may not be exported, a bad filter or
// format, or a destination outside the export bucket fail permanently.
func (x DataExportExecutor) Execute(ctx context.Context, a Attempt) (Result, error) {
	var d exportData
	if err := decodeData(a, &d); err != nil {
		return nil, err
	}
	if err := requireField(a, "collection", d.Collection); err != nil {
		return nil, err
	}
	if d.Format == "" {
		d.Format = "json"
	}
	if d.Format != "json" && d.Format != "csv" {
		return nil, fault.Permanent(CodeInvalidData, "data_export data.format must be json or csv")
	}
	docs, err := x.Source.ExportDocuments(ctx, store.ExportQuery{Collection: d.Collection, Filter: d.Filter, Limit: d.Limit})
	if qerr, ok := errors.AsType[*store.ExportQueryError](err); ok {
		return nil, fault.Permanent(CodeInvalidData, "%s", qerr.Reason)
	}
	if err != nil {
		return nil, fault.Retryable(CodeExport, err)
	}
	body, contentType, err := encodeExport(d.Format, docs)
	if err != nil {
		return nil, err
	}
	bucket, key := "", fmt.Sprintf("exports/%s/%s.%s", d.Collection, a.TaskID, d.Format)
	if d.Destination != "" {
		if bucket, key, err = parseDestination(d.Destination); err != nil {
			return nil, err
		}
	}
	loc, err := x.Objects.Put(ctx, objects.Object{Bucket: bucket, Key: key, ContentType: contentType, Body: bytes.NewReader(body)})
	if err != nil {
		return nil, err
	}
	return Result{"exported": true, "location": loc, "format": d.Format, "records": len(docs), "bytes": len(body)}, nil
}

// encodeExport renders documents as a JSON array, or as CSV with one column
// per top-level field (sorted) and nested values as JSON text.
func encodeExport(format string, docs []json.RawMessage) ([]byte, string, error) {
	if format == "json" {
		if docs == nil {
			docs = []json.RawMessage{}
		}
		b, err := json.Marshal(docs)
		if err != nil {
			return nil, "", fault.Permanent(CodeExport, "encode json: %w", err)
		}
		return b, "application/json", nil
	}
	rows := make([]map[string]json.RawMessage, len(docs))
	cols := map[string]bool{}
	for i, d := range docs {
		if err := json.Unmarshal(d, &rows[i]); err != nil {
			return nil, "", fault.Permanent(CodeExport, "document %d is not an object", i)
		}
		for k := range rows[i] {
			cols[k] = true
		}
	}
	header := slices.Sorted(maps.Keys(cols))
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(header)
	for _, row := range rows {
		rec := make([]string, len(header))
		for j, col := range header {
			v, ok := row[col]
			if !ok || string(v) == "null" {
				continue
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				rec[j] = s
			} else {
				rec[j] = string(v)
			}
		}
		_ = w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, "", fault.Permanent(CodeExport, "encode csv: %w", err)
	}
	return b.Bytes(), "text/csv", nil
}
