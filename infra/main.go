package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

func main() {
	err := run()
	jsii.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "streamops infra:", err)
		os.Exit(1)
	}
}

// run synthesizes the stack into the CLI's output directory.
func run() error {
	app := awscdk.NewApp(nil)
	cfg, err := configFromContext(app)
	if err != nil {
		return err
	}
	if cfg.AssetDir, err = filepath.Abs(cfg.AssetDir); err != nil {
		return err
	}
	if err := checkAssets(cfg); err != nil {
		return err
	}
	if err := loadMappingSettings(&cfg); err != nil {
		return err
	}
	// Environment-agnostic: the template names no account or region, and
	// `cdk deploy` targets whatever the caller's credentials point at.
	if _, err := newStreamOpsStack(app, cfg, &awscdk.StackProps{
		Description: jsii.String("StreamOps: serverless event integration (HTTP API, Lambdas, MSK mappings, Kafka topics, schedules, alarms)"),
	}); err != nil {
		return err
	}
	app.Synth(nil)
	return nil
}
