package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/netip"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/pii"
)

// maxSamples bounds the invalid records a validate result describes.
const maxSamples = 10

// invalidSample says why one record failed validation, without its values.
type invalidSample struct {
	Record  int    `json:"record"`
	Path    string `json:"path"`
	Keyword string `json:"keyword"`
}

// ValidateStep checks every record against the JSON Schema (draft 2020-12,
// formats asserted) in the input's "schema" parameter and passes only the
// valid ones on; without a schema every record is valid. Invalid records
// are counted (invalidRecords) and the first few described by record index,
// JSON pointer and broken keyword, never by value. A schema that does not
// compile fails the workflow with VALIDATE_ERROR. The schema may not
// reference anything outside itself.
func ValidateStep(_ context.Context, in StepInput) (StepOutput, error) {
	var raw json.RawMessage
	found, err := in.Param("schema", &raw)
	if err != nil {
		return StepOutput{}, fault.Permanent(CodeValidate, "%w", err)
	}
	out := StepOutput{Result: events.StepResult{RecordsProcessed: len(in.Records)}}
	if !found {
		out.Records, out.Result.ValidRecords = in.Records, len(in.Records)
		return out, nil
	}
	sch, err := compileRecordSchema(raw)
	if err != nil {
		return StepOutput{}, fault.Permanent(CodeValidate, "input.schema does not compile: %w", err)
	}
	var samples []invalidSample
	for i, rec := range in.Records {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec))
		if err == nil {
			err = sch.Validate(doc)
		}
		if err == nil {
			out.Records = append(out.Records, rec)
			continue
		}
		out.Result.InvalidRecords++
		if len(samples) < maxSamples {
			samples = append(samples, sampleOf(i, err))
		}
	}
	out.Result.ValidRecords = len(out.Records)
	if len(samples) > 0 {
		b, _ := json.Marshal(samples)
		out.Result.Extra = map[string]json.RawMessage{"invalidSamples": b}
	}
	return out, nil
}

// referenceFormats are the formats a personal datum's own: a record's
// email or IP address arrives as a reference (package vault), which
// satisfies the format of its category; any other value is checked as
// the format says.
var referenceFormats = []*jsonschema.Format{
	{Name: "email", Validate: referenceOr(pii.CategoryEmail, isEmail)},
	{Name: "idn-email", Validate: referenceOr(pii.CategoryEmail, isEmail)},
	{Name: "ipv4", Validate: referenceOr(pii.CategoryIP, func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is4() })},
	{Name: "ipv6", Validate: referenceOr(pii.CategoryIP, func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && a.Zone() == ""
	})},
}

// referenceOr is a format check: a reference of category c, or a string
// ok accepts; a value that is no string is not the format's to judge.
func referenceOr(c pii.Category, ok func(string) bool) func(v any) error {
	return func(v any) error {
		s, isString := v.(string)
		if !isString {
			return nil
		}
		if ref, isRef := pii.ParseReference(s); isRef && ref.Category == c {
			return nil
		}
		if !ok(s) {
			return fmt.Errorf("not a valid %s", c)
		}
		return nil
	}
}

// isEmail says whether s is an addr-spec (local@domain, no display name).
func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// compileRecordSchema compiles a schema given inline. The loader knows no
// scheme, so a $ref can reach neither the network nor the file system.
func compileRecordSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	for _, f := range referenceFormats {
		c.RegisterFormat(f)
	}
	c.UseLoader(jsonschema.SchemeURLLoader{})
	const url = "urn:streamops:workflow-input-schema"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// sampleOf describes the first broken rule of a record's validation error.
func sampleOf(record int, err error) invalidSample {
	s := invalidSample{Record: record, Path: "", Keyword: "json"}
	verr, ok := errors.AsType[*jsonschema.ValidationError](err)
	if !ok {
		return s
	}
	for len(verr.Causes) > 0 {
		verr = verr.Causes[0]
	}
	if len(verr.InstanceLocation) > 0 {
		s.Path = "/" + strings.Join(verr.InstanceLocation, "/")
	}
	s.Keyword = "schema"
	if kw := verr.ErrorKind.KeywordPath(); len(kw) > 0 {
		s.Keyword = kw[0]
	}
	return s
}
