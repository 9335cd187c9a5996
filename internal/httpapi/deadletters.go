package httpapi

import "net/http"

// deadLetterRoutes registers the dead-letter routes (arrive with the
// processors' dead-letter store).
func (a *api) deadLetterRoutes(_ *http.ServeMux, _ func(handlerFunc) http.Handler) {}
