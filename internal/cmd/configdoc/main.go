// Command configdoc writes docs/configuration.md, the table of every
// program's variables, from the structs of internal/config:
//
//	go run ./internal/cmd/configdoc > docs/configuration.md
package main

import (
	"fmt"

	"github.com/streamops/streamops/internal/config"
)

func main() { fmt.Print(config.Markdown()) }
