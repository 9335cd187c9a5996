package app

import (
	"os"

	"github.com/streamops/streamops/internal/provider"
)

// Providers loads the webhook providers of the file STREAMOPS_PROVIDERS_FILE
// names, or the embedded providers.json when it is unset: the registry of
// every function that verifies or routes webhooks, and of the CLI's curl.
func Providers() (*provider.Registry, error) {
	return provider.LoadProviders(os.Getenv("STREAMOPS_PROVIDERS_FILE"))
}
