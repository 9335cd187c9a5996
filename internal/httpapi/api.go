package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
)

// maxAPIBody caps a submission body.
const maxAPIBody = 1 << 20

// API serves the /api routes of the submissions: POST and GET of workflows
// and tasks.
func API(svc *submit.Service, st *store.Store, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/workflows", func(w http.ResponseWriter, r *http.Request) {
		var req submit.WorkflowRequest
		if err := decodeBody(w, r, &req); err != nil {
			writeError(w, r, log, err)
			return
		}
		receipt, err := svc.SubmitWorkflow(r.Context(), req, r.Header.Get("Idempotency-Key"))
		if err != nil {
			writeError(w, r, log, err)
			return
		}
		writeJSON(w, http.StatusCreated, receipt)
	})
	mux.HandleFunc("GET /api/workflows/{id}", func(w http.ResponseWriter, r *http.Request) {
		wf, err := st.GetWorkflow(r.Context(), r.PathValue("id"))
		if err != nil {
			writeError(w, r, log, fmt.Errorf("workflow %q: %w", r.PathValue("id"), err))
			return
		}
		writeJSON(w, http.StatusOK, workflowView(wf))
	})
	mux.HandleFunc("POST /api/tasks", func(w http.ResponseWriter, r *http.Request) {
		var req submit.TaskRequest
		if err := decodeBody(w, r, &req); err != nil {
			writeError(w, r, log, err)
			return
		}
		receipt, err := svc.SubmitTask(r.Context(), req, r.Header.Get("Idempotency-Key"))
		if err != nil {
			writeError(w, r, log, err)
			return
		}
		writeJSON(w, http.StatusCreated, receipt)
	})
	mux.HandleFunc("GET /api/tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		task, err := st.GetTask(r.Context(), r.PathValue("id"))
		if err != nil {
			writeError(w, r, log, fmt.Errorf("task %q: %w", r.PathValue("id"), err))
			return
		}
		writeJSON(w, http.StatusOK, task)
	})
	return withNotFound(mux)
}

// decodeBody reads a JSON request body strictly: unknown fields and
// trailing data are errors, so a typo is reported rather than ignored.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAPIBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if _, ok := err.(*http.MaxBytesError); ok {
			return err
		}
		return fmt.Errorf("%w: %v", errBadJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: unexpected data after the JSON object", errBadJSON)
	}
	return nil
}

// stepView is one step of a workflow with its progress.
type stepView struct {
	Name   string              `json:"name"`
	Index  int                 `json:"index"`
	Status string              `json:"status"` // completed | running | failed | pending
	Result *store.StepProgress `json:"result,omitempty"`
}

// workflowState is GET /api/workflows/{id}: the stored state plus per-step
// progress.
type workflowState struct {
	store.Workflow
	Progress []stepView `json:"progress"`
}

func workflowView(wf store.Workflow) workflowState {
	out := workflowState{Workflow: wf, Progress: make([]stepView, len(wf.Steps))}
	for i, name := range wf.Steps {
		sv := stepView{Name: name, Index: i, Status: "pending"}
		switch {
		case i < len(wf.StepResults):
			sv.Status, sv.Result = "completed", &wf.StepResults[i]
		case i == wf.CurrentStepIndex && wf.Status == store.WorkflowProcessing:
			sv.Status = "running"
		case i == wf.CurrentStepIndex && wf.Status == store.WorkflowFailed:
			sv.Status = "failed"
		}
		out.Progress[i] = sv
	}
	return out
}
