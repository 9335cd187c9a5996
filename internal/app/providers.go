package app

import (
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/provider"
)

// Providers loads the webhook providers of the file c names, or the
// embedded providers.json when it names none: the registry of every
// function that verifies or routes webhooks, and of the CLI's curl.
func Providers(c config.Providers) (*provider.Registry, error) {
	return provider.LoadProviders(c.ProvidersFile)
}
