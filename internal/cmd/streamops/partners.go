package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// partnersCmd is `streamops partners <subcommand>`: requeue (the partner
// pause/resume commands join it here).
func partnersCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("name a subcommand: requeue")
	}
	switch sub := args[0]; sub {
	case "requeue":
		return partnersRequeue(ctx, args[1:], stdin, stdout, stderr)
	default:
		return fmt.Errorf("unknown subcommand %q: requeue", sub)
	}
}
