package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/vault"
)

// Subjects is the personal-data vault the subject routes erase and look
// up in (vault.Vault).
type Subjects interface {
	Erase(ctx context.Context, r vault.Request, by string) (vault.Receipt, error)
	Lookup(ctx context.Context, r vault.Request) ([]vault.SubjectInfo, error)
}

// errNoVault: the deployment wired no vault, so there is no subject to
// erase or look up.
var errNoVault = errors.New("this API has no personal-data vault")

// subjectRoutes registers the erasure and the lookup of a data subject.
func (a *api) subjectRoutes(mux *http.ServeMux, admin func(handlerFunc) http.Handler) {
	mux.Handle("POST /api/subjects/erase", admin(a.eraseSubject))
	mux.Handle("POST /api/subjects/lookup", admin(a.lookupSubjectByBody))
	mux.Handle("GET /api/subjects/{id}", admin(a.lookupSubject))
}

// SubjectsView is the answer of GET /api/subjects/{id}: what is held for
// each subject the id reaches, counts and places only.
type SubjectsView struct {
	Subjects []vault.SubjectInfo `json:"subjects"`
}

// eraseSubject is POST /api/subjects/erase with {"email"}, {"phone"} or
// {"subjectId"}: the keys of every subject it reaches are destroyed, so
// no copy of their data opens anywhere again; 200 with the receipt. The
// same request again answers the same receipt (repeated: true) and emits
// no second subject.erased.
func (a *api) eraseSubject(w http.ResponseWriter, r *http.Request, p Principal) {
	if a.cfg.Subjects == nil {
		writeError(w, r, a.log, errNoVault)
		return
	}
	var req vault.Request
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	rc, err := a.cfg.Subjects.Erase(r.Context(), req, p.ID)
	if err != nil {
		writeError(w, r, a.log, subjectError(err))
		return
	}
	if !rc.Repeated {
		erased := make([]events.ErasedSubjectEntry, len(rc.Subjects))
		for i, s := range rc.Subjects {
			erased[i] = events.ErasedSubjectEntry{SubjectID: s.SubjectID, Generation: s.Generation}
		}
		_ = a.cfg.Operations.Emit(r.Context(), events.SubjectErased, "", events.SubjectErasedPayload{
			ReceiptID: rc.ReceiptID, Request: rc.Request, By: rc.ErasedBy, ErasedAt: events.At(rc.ErasedAt), Subjects: erased,
		}, opsevents.SubjectErasedID(rc.ReceiptID))
	}
	writeJSON(w, http.StatusOK, rc)
}

// lookupSubjectByBody is POST /api/subjects/lookup with {"email"},
// {"phone"} or {"subjectId"}: 200 with what is held for every subject it
// reaches, an empty list when none. The address travels in the body, so
// no URL (an access log, the browser's history) holds it.
func (a *api) lookupSubjectByBody(w http.ResponseWriter, r *http.Request, _ Principal) {
	var req vault.Request
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	a.lookup(w, r, req)
}

// lookupSubject is GET /api/subjects/{id} for a subject id. An email or a
// phone number is refused (400): a URL is logged, so the address goes in
// the body of POST /api/subjects/lookup.
func (a *api) lookupSubject(w http.ResponseWriter, r *http.Request, _ Principal) {
	req := vault.RequestFor(r.PathValue("id"))
	if req.SubjectID == "" {
		writeError(w, r, a.log, &paramError{Param: "id", Reason: "is a subject id; send an email or phone number in the body of POST /api/subjects/lookup, since URLs are logged"})
		return
	}
	a.lookup(w, r, req)
}

func (a *api) lookup(w http.ResponseWriter, r *http.Request, req vault.Request) {
	if a.cfg.Subjects == nil {
		writeError(w, r, a.log, errNoVault)
		return
	}
	infos, err := a.cfg.Subjects.Lookup(r.Context(), req)
	if err != nil {
		writeError(w, r, a.log, subjectError(err))
		return
	}
	writeJSON(w, http.StatusOK, SubjectsView{Subjects: infos})
}

// subjectError is a vault error as the API reports it.
func subjectError(err error) error {
	if errors.Is(err, vault.ErrBadRequest) {
		return &submit.ValidationError{Field: "email", Reason: strings.TrimPrefix(err.Error(), "vault: ")}
	}
	return err
}
