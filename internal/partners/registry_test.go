package partners_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/partners"
	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/subscribe"
	"github.com/streamops/streamops/internal/vault"
)

// countingKeys is the real local key file, counting its unwraps.
type countingKeys struct {
	*vault.KeyFile
	unwraps atomic.Int64
}

func (c *countingKeys) Unwrap(ctx context.Context, subject string, wrapped []byte) ([]byte, error) {
	c.unwraps.Add(1)
	return c.KeyFile.Unwrap(ctx, subject, wrapped)
}

type fixture struct {
	clock *storetest.Clock
	store *store.Store
	keys  *countingKeys
	reg   *partners.Registry
	dir   *partners.Directory
	logs  *bytes.Buffer
}

func newFixture(t *testing.T, mutate ...func(*partners.Config)) fixture {
	t.Helper()
	clock := storetest.NewClock()
	st := storetest.Open(t, store.Config{Now: clock.Now})
	kf, err := vault.LoadKeyFile(filepath.Join(t.TempDir(), vault.KeyFileName))
	require.NoError(t, err)
	keys := &countingKeys{KeyFile: kf}
	logs := &bytes.Buffer{}
	cfg := partners.Config{Store: st, Wrapper: keys, Now: clock.Now, Logger: slog.New(slog.NewJSONHandler(logs, nil))}
	for _, m := range mutate {
		m(&cfg)
	}
	reg, err := partners.New(cfg)
	require.NoError(t, err)
	dir, err := partners.NewDirectory(partners.DirectoryConfig{Store: st, Wrapper: keys, Refresh: time.Second, Now: clock.Now})
	require.NoError(t, err)
	return fixture{clock: clock, store: st, keys: keys, reg: reg, dir: dir, logs: logs}
}

func acme() partners.Spec {
	rate, inflight := 2.0, 4
	return partners.Spec{ID: "acme", Name: "Acme Corp", URL: "https://acme.example/hooks", RateLimit: &rate, MaxInFlight: &inflight,
		ClearPersonalData: []string{"email"},
		Subscriptions: []subscribe.Subscription{{EventTypes: []string{"workflow.completed", "task.*"},
			Filter: json.RawMessage(`{"payload.name": {"$eq": "nightly"}}`)}}}
}

// TestACreatedPartnerShowsItsSecretOnceAndStoresItSealed: the secret is
// a Standard Webhooks secret of 32 random bytes, returned once, sealed in
// the store (not there in clear), never in a log line nor in Get.
func TestACreatedPartnerShowsItsSecretOnceAndStoresItSealed(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	created, err := f.reg.Create(ctx, acme(), "admin-1")
	require.NoError(t, err)

	require.True(t, strings.HasPrefix(created.Secret.Value, "whsec_"), created.Secret.ID)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(created.Secret.Value, "whsec_"))
	require.NoError(t, err)
	assert.Len(t, key, 32)
	assert.Equal(t, store.PartnerSourceAPI, created.Partner.Source)
	assert.Equal(t, 1, created.Partner.Version)
	require.Len(t, created.Partner.Secrets, 1)
	assert.Equal(t, created.Secret.ID, created.Partner.Secrets[0].ID)

	doc, err := f.store.GetPartner(ctx, "acme")
	require.NoError(t, err)
	require.Len(t, doc.Secrets, 1)
	assert.NotContains(t, string(doc.Secrets[0].Sealed), created.Secret.Value)
	assert.NotContains(t, string(doc.Secrets[0].Sealed), string(key))
	assert.Equal(t, `{"payload.name":{"$eq":"nightly"}}`, doc.Subscriptions[0].Filter, "kept as compact JSON text")

	got, err := f.reg.Get(ctx, "acme")
	require.NoError(t, err)
	shown, err := json.Marshal(got)
	require.NoError(t, err)
	assert.NotContains(t, string(shown), created.Secret.Value)
	assert.NotContains(t, f.logs.String(), created.Secret.Value)
	assert.Contains(t, f.logs.String(), "partner created")

	secrets, err := f.dir.Secrets(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, []string{created.Secret.Value}, secrets, "the directory opens what was sealed")

	_, err = f.reg.Create(ctx, acme(), "admin-1")
	require.ErrorIs(t, err, partners.ErrExists)
}

// TestACreateWithABadFieldNamesItAndStoresNothing.
func TestACreateWithABadFieldNamesItAndStoresNothing(t *testing.T) {
	f := newFixture(t) // the fan-out's own matcher checks the subscriptions
	zero, none := 0.0, 0
	tests := []struct {
		name  string
		spec  func(*partners.Spec)
		field string
	}{
		{"no id", func(s *partners.Spec) { s.ID = "" }, "id"},
		{"the kafka target", func(s *partners.Spec) { s.ID = "kafka" }, "id"},
		{"an id with a slash", func(s *partners.Spec) { s.ID = "acme/eu" }, "id"},
		{"no url", func(s *partners.Spec) { s.URL = "" }, "url"},
		{"a relative url", func(s *partners.Spec) { s.URL = "/hooks" }, "url"},
		{"an ftp url", func(s *partners.Spec) { s.URL = "ftp://acme.example/" }, "url"},
		{"a zero rate", func(s *partners.Spec) { s.RateLimit = &zero }, "rateLimit"},
		{"no deliveries in flight", func(s *partners.Spec) { s.MaxInFlight = &none }, "maxInFlight"},
		{"an unknown category", func(s *partners.Spec) { s.ClearPersonalData = []string{"shoe_size"} }, "clearPersonalData[0]"},
		{"a subscription without types", func(s *partners.Spec) { s.Subscriptions[0].EventTypes = nil }, "subscriptions[0].eventTypes"},
		{"a type with a stray star", func(s *partners.Spec) { s.Subscriptions[0].EventTypes = []string{"task*"} }, "subscriptions[0].eventTypes[0]"},
		{"a filter that is an array", func(s *partners.Spec) { s.Subscriptions[0].Filter = json.RawMessage(`[1]`) }, "subscriptions[0].filter"},
		{"a filter with a repeated key", func(s *partners.Spec) { s.Subscriptions[0].Filter = json.RawMessage(`{"a":1,"a":2}`) }, "subscriptions[0].filter"},
		{"a filter operator the matcher refuses", func(s *partners.Spec) { s.Subscriptions[0].Filter = json.RawMessage(`{"$where":"1"}`) }, "subscriptions[0].filter.$where"},
		{"a filter operator deep in a path", func(s *partners.Spec) {
			s.Subscriptions[0].Filter = json.RawMessage(`{"payload.name":{"$regex":"^In"}}`)
		}, "subscriptions[0].filter.payload.name.$regex"},
		{"an event type that does not exist", func(s *partners.Spec) { s.Subscriptions[0].EventTypes = []string{"workflow.finished"} }, "subscriptions[0].eventTypes[0]"},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			s := acme()
			c.spec(&s)
			_, err := f.reg.Create(context.Background(), s, "admin-1")
			var fe *partners.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.field, fe.Field, fe.Reason)
			list, err := f.reg.List(context.Background())
			require.NoError(t, err)
			assert.Empty(t, list, "nothing half-stored")
		})
	}
}

// TestAPatchChangesWhatItNamesAtTheVersionItRead.
func TestAPatchChangesWhatItNamesAtTheVersionItRead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.reg.Create(ctx, acme(), "admin-1")
	require.NoError(t, err)

	patch := func(body string) partners.Patch {
		var p partners.Patch
		require.NoError(t, json.Unmarshal([]byte(body), &p))
		return p
	}
	tests := []struct {
		name    string
		body    string
		err     error
		field   string
		check   func(t *testing.T, p partners.Partner)
		version int
	}{
		{name: "a new url", body: `{"url":"https://acme.example/v2"}`, version: 2, check: func(t *testing.T, p partners.Partner) {
			assert.Equal(t, "https://acme.example/v2", p.URL)
			assert.Equal(t, "Acme Corp", p.Name, "what the patch does not name stays")
			require.NotNil(t, p.RateLimit)
		}},
		{name: "null clears a limit", body: `{"rateLimit":null,"version":2}`, version: 3, check: func(t *testing.T, p partners.Partner) {
			assert.Nil(t, p.RateLimit)
			require.NotNil(t, p.MaxInFlight)
		}},
		{name: "a stale version", body: `{"name":"Acme","version":1}`, err: store.ErrVersionConflict, version: 3},
		{name: "a bad url", body: `{"url":"nowhere"}`, field: "url", version: 3},
		{name: "null url", body: `{"url":null}`, field: "url", version: 3},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			p, err := f.reg.Update(ctx, "acme", patch(c.body), "admin-1")
			var fe *partners.FieldError
			switch {
			case c.err != nil:
				require.ErrorIs(t, err, c.err)
			case c.field != "":
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, c.field, fe.Field)
			default:
				require.NoError(t, err)
				c.check(t, p)
			}
			got, err := f.reg.Get(ctx, "acme")
			require.NoError(t, err)
			assert.Equal(t, c.version, got.Version)
		})
	}
	_, err = f.reg.Update(ctx, "nobody", patch(`{"name":"x"}`), "admin-1")
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestDeletingAPartnerCancelsItsWaitingDeliveriesAndKeepsItsHistory.
func TestDeletingAPartnerCancelsItsWaitingDeliveriesAndKeepsItsHistory(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.reg.Create(ctx, acme(), "admin-1")
	require.NoError(t, err)
	_, err = f.store.EnqueueOutbox(ctx,
		store.OutboxEntry{OutboxID: "o1", TargetProvider: "acme", EventType: "workflow.completed"},
		store.OutboxEntry{OutboxID: "o2", TargetProvider: "acme", EventType: "workflow.completed"},
		store.OutboxEntry{OutboxID: "o3", TargetProvider: "globex", EventType: "workflow.completed"})
	require.NoError(t, err)

	d, err := f.reg.Delete(ctx, "acme", "admin-1")
	require.NoError(t, err)
	assert.Equal(t, 2, d.Cancelled)
	require.NotNil(t, d.Partner.DeletedAt)
	e, err := f.store.GetOutboxEntry(ctx, "o1")
	require.NoError(t, err)
	assert.Equal(t, status.OutboxDeadLetter, e.Status)
	assert.Equal(t, partners.CancelledReason, e.LastError)
	other, err := f.store.GetOutboxEntry(ctx, "o3")
	require.NoError(t, err)
	assert.Equal(t, status.OutboxPending, other.Status)

	kept, err := f.reg.Get(ctx, "acme")
	require.NoError(t, err)
	assert.NotNil(t, kept.DeletedAt, "the history stays readable")
	ps, err := f.dir.Partners(ctx)
	require.NoError(t, err)
	assert.NotContains(t, ps, "acme")
	for name, err := range map[string]error{
		"delete again": func() error { _, err := f.reg.Delete(ctx, "acme", "admin-1"); return err }(),
		"rotate":       func() error { _, err := f.reg.Rotate(ctx, "acme", nil, "admin-1"); return err }(),
		"enable":       func() error { _, err := f.reg.Enable(ctx, "acme", "admin-1"); return err }(),
	} {
		assert.ErrorIs(t, err, store.ErrNotFound, name)
	}
}

// TestARotatedSecretSignsBesideTheOldOneForTheOverlap: during the overlap
// the directory gives both, newest first; after it, only the new one.
func TestARotatedSecretSignsBesideTheOldOneForTheOverlap(t *testing.T) {
	hour, zero, tooLong, negative := time.Hour, time.Duration(0), 31*24*time.Hour, -time.Second
	tests := []struct {
		name    string
		overlap *time.Duration
		during  time.Duration // a moment inside the overlap, when there is one
		after   time.Duration
		field   bool
	}{
		{name: "the default day", overlap: nil, during: 23 * time.Hour, after: 24 * time.Hour},
		{name: "an hour", overlap: &hour, during: 59 * time.Minute, after: time.Hour},
		{name: "none: the old stops at once", overlap: &zero, after: 0},
		{name: "over 30 days", overlap: &tooLong, field: true},
		{name: "negative", overlap: &negative, field: true},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			created, err := f.reg.Create(ctx, acme(), "admin-1")
			require.NoError(t, err)
			start := f.clock.Now()
			rotated, err := f.reg.Rotate(ctx, "acme", c.overlap, "admin-1")
			if c.field {
				var fe *partners.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, "overlap", fe.Field)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, rotated.OldUntil)
			assert.Equal(t, start.Add(c.after), *rotated.OldUntil)
			assert.NotEqual(t, created.Secret.Value, rotated.Secret.Value)
			assert.NotContains(t, f.logs.String(), rotated.Secret.Value)

			if c.during > 0 {
				f.clock.Advance(c.during)
				got, err := f.dir.Secrets(ctx, "acme")
				require.NoError(t, err)
				assert.Equal(t, []string{rotated.Secret.Value, created.Secret.Value}, got)
				f.clock.Advance(c.after - c.during)
			}
			got, err := f.dir.Secrets(ctx, "acme")
			require.NoError(t, err)
			assert.Equal(t, []string{rotated.Secret.Value}, got)
		})
	}
}

// TestTheDirectorySeesAChangeWithinItsRefresh: a snapshot serves until
// Refresh has passed, then the next read sees every change; each sealed
// secret is opened once, not at every refresh.
func TestTheDirectorySeesAChangeWithinItsRefresh(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.reg.Create(ctx, acme(), "admin-1")
	require.NoError(t, err)
	ps, err := f.dir.Partners(ctx)
	require.NoError(t, err)
	want := outbox.Partner{ID: "acme", Name: "Acme Corp", URL: "https://acme.example/hooks", RateLimit: acme().RateLimit,
		MaxInFlight: acme().MaxInFlight, ClearPersonalData: []string{"email"},
		Subscriptions: []subscribe.Subscription{{EventTypes: []string{"workflow.completed", "task.*"}, Filter: json.RawMessage(`{"payload.name":{"$eq":"nightly"}}`)}}}
	assert.Equal(t, map[string]outbox.Partner{"acme": want}, ps)
	require.NoError(t, want.Validate())

	_, err = f.reg.Disable(ctx, "acme", "endpoint is being migrated", "admin-1")
	require.NoError(t, err)
	ps, err = f.dir.Partners(ctx)
	require.NoError(t, err)
	assert.False(t, ps["acme"].Disabled, "within Refresh the snapshot serves")

	f.clock.Advance(time.Second)
	ps, err = f.dir.Partners(ctx)
	require.NoError(t, err)
	assert.True(t, ps["acme"].Disabled)
	assert.Equal(t, "endpoint is being migrated", ps["acme"].DisabledReason)

	_, err = f.reg.Enable(ctx, "acme", "admin-1")
	require.NoError(t, err)
	f.clock.Advance(time.Second)
	ps, err = f.dir.Partners(ctx)
	require.NoError(t, err)
	assert.False(t, ps["acme"].Disabled)
	_, err = f.dir.Secrets(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, int64(1), f.keys.unwraps.Load(), "opened once over three reads")
}

// TestImportingThePartnersFileIsIdempotentAndTheStoreWins.
func TestImportingThePartnersFileIsIdempotentAndTheStoreWins(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	file := map[string]outbox.Partner{
		"acme":   {ID: "acme", Name: "Acme", URL: "https://acme.example/hooks"},
		"globex": {ID: "globex", Name: "Globex", URL: "https://globex.example/hooks"},
	}
	env := provider.EnvSecrets{Prefix: "PARTNER_SECRET_", Lookup: envMap{
		"PARTNER_SECRET_ACME": "whsec_bmV3LXNlY3JldC0wMTIzNDU2Nzg5,whsec_b2xkLXNlY3JldC0wMTIzNDU2Nzg5"}.get}

	got, err := f.reg.Import(ctx, file, env)
	require.NoError(t, err)
	assert.Equal(t, partners.Imported{Created: []string{"acme", "globex"}}, got)
	acmeDoc, err := f.reg.Get(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, store.PartnerSourceFile, acmeDoc.Source)
	secrets, err := f.dir.Secrets(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_bmV3LXNlY3JldC0wMTIzNDU2Nzg5", "whsec_b2xkLXNlY3JldC0wMTIzNDU2Nzg5"}, secrets, "newest first, as the source gave them")
	assert.NotContains(t, f.logs.String(), "whsec_")

	_, err = f.reg.Update(ctx, "acme", partners.Patch{URL: partners.Change[string]{Set: true, Value: ptr("https://acme.example/v2")}}, "admin-1")
	require.NoError(t, err)
	again, err := f.reg.Import(ctx, file, env)
	require.NoError(t, err)
	assert.Equal(t, partners.Imported{Kept: []string{"acme", "globex"}}, again)
	after, err := f.reg.Get(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, "https://acme.example/v2", after.URL, "the store's copy wins")
	assert.Equal(t, 2, after.Version, "a second import changes nothing")
	assert.Contains(t, f.logs.String(), "the store's copy wins")
}

type envMap map[string]string

func (m envMap) get(k string) string { return m[k] }

func ptr[T any](v T) *T { return &v }

// TestTheDirectoryServesTheFileUntilThePartnerIsStored: a file partner
// the store never held is served from the file with the fallback's
// secrets; once imported, and once deleted, the store's copy holds.
func TestTheDirectoryServesTheFileUntilThePartnerIsStored(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	file := map[string]outbox.Partner{"acme": {ID: "acme", Name: "Acme", URL: "https://acme.example/hooks"}}
	env := provider.EnvSecrets{Prefix: "PARTNER_SECRET_", Lookup: envMap{"PARTNER_SECRET_ACME": "whsec_ZmlsZS1zZWNyZXQtMDEyMzQ1Njc4OQ=="}.get}
	dir, err := partners.NewDirectory(partners.DirectoryConfig{Store: f.store, Wrapper: f.keys, Refresh: time.Second, Now: f.clock.Now,
		File: file, Fallback: env})
	require.NoError(t, err)

	steps := []struct {
		name    string
		do      func()
		present bool
		url     string
	}{
		{name: "not imported: the file's", do: func() {}, present: true, url: "https://acme.example/hooks"},
		{name: "imported and changed: the store's", do: func() {
			_, err := f.reg.Import(ctx, file, env)
			require.NoError(t, err)
			_, err = f.reg.Update(ctx, "acme", partners.Patch{URL: partners.Change[string]{Set: true, Value: ptr("https://acme.example/v2")}}, "admin-1")
			require.NoError(t, err)
		}, present: true, url: "https://acme.example/v2"},
		{name: "deleted: gone, though the file names it", do: func() {
			_, err := f.reg.Delete(ctx, "acme", "admin-1")
			require.NoError(t, err)
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do()
			f.clock.Advance(time.Second)
			ps, err := dir.Partners(ctx)
			require.NoError(t, err)
			p, ok := ps["acme"]
			require.Equal(t, s.present, ok)
			if ok {
				assert.Equal(t, s.url, p.URL)
				secrets, err := dir.Secrets(ctx, "acme")
				require.NoError(t, err)
				assert.Equal(t, []string{"whsec_ZmlsZS1zZWNyZXQtMDEyMzQ1Njc4OQ=="}, secrets)
			}
		})
	}
}

// TestFanOutReadsTheSubscriptionsOfTheStoredPartners: partner.Subscriptions
// (fan-out's directory, without the relay) gives each partner's
// subscriptions as stored, a disabled partner's too, not a deleted one's,
// and a file partner's until the store holds it.
func TestFanOutReadsTheSubscriptionsOfTheStoredPartners(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.reg.Create(ctx, acme(), "admin-1")
	require.NoError(t, err)
	plain := acme()
	plain.ID, plain.Subscriptions = "globex", nil
	_, err = f.reg.Create(ctx, plain, "admin-1")
	require.NoError(t, err)
	fileSubs := []subscribe.Subscription{{EventTypes: []string{"task.*"}}}
	dir := partner.Subscriptions{Store: f.store, File: map[string][]subscribe.Subscription{"initech": fileSubs, "globex": fileSubs}}

	got, err := dir.Subscriptions(ctx)
	require.NoError(t, err)
	assert.Equal(t, normalised(map[string][]subscribe.Subscription{"acme": acme().Subscriptions, "globex": nil, "initech": fileSubs}), normalised(got),
		"globex is the store's (none), initech the file's")

	_, err = f.reg.Disable(ctx, "acme", "", "admin-1")
	require.NoError(t, err)
	_, err = f.reg.Delete(ctx, "globex", "admin-1")
	require.NoError(t, err)
	got, err = dir.Subscriptions(ctx)
	require.NoError(t, err)
	assert.Contains(t, got, "acme", "a disabled partner's entries wait")
	assert.NotContains(t, got, "globex", "deleted, though the file names it")
}

// normalised compacts each filter, as the registry stores it.
func normalised(m map[string][]subscribe.Subscription) map[string][]subscribe.Subscription {
	for _, subs := range m {
		for i := range subs {
			var b bytes.Buffer
			if len(subs[i].Filter) > 0 && json.Compact(&b, subs[i].Filter) == nil {
				subs[i].Filter = b.Bytes()
			}
		}
	}
	return m
}

// TestTheRelaysAutoDisableDisablesOnce: DisablePartner (the relay's
// outbox.PartnerDisabler) disables a stored partner once, by the relay,
// at the time it names; again it changes nothing; an unknown or deleted
// partner is not found; an operator's enable resumes it.
func TestTheRelaysAutoDisableDisablesOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.reg.Create(ctx, acme(), "admin-1")
	require.NoError(t, err)
	at := f.clock.Now().Add(-time.Minute)
	tests := []struct {
		name    string
		id      string
		changed bool
		err     error
	}{
		{name: "the first disable", id: "acme", changed: true},
		{name: "another relay's, later", id: "acme"},
		{name: "a partner the store does not hold", id: "initech", err: store.ErrNotFound},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			changed, err := f.reg.DisablePartner(ctx, c.id, "every delivery failed for 120h0m0s", at)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.changed, changed)
			p, err := f.reg.Get(ctx, "acme")
			require.NoError(t, err)
			assert.True(t, p.Disabled)
			assert.Equal(t, partners.AutoDisabledBy, p.DisabledBy)
			assert.Equal(t, at.UTC().Truncate(time.Millisecond), p.DisabledAt.UTC())
			assert.Equal(t, 2, p.Version, "the second disable wrote nothing")
		})
	}
	_, err = f.reg.Enable(ctx, "acme", "admin-1")
	require.NoError(t, err)
	changed, err := f.reg.DisablePartner(ctx, "acme", "again", at)
	require.NoError(t, err)
	assert.True(t, changed, "enabled, it can be disabled again")
	_, err = f.reg.Delete(ctx, "acme", "admin-1")
	require.NoError(t, err)
	_, err = f.reg.DisablePartner(ctx, "acme", "again", at)
	require.ErrorIs(t, err, store.ErrNotFound)
}
