package main

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// The configuration layer: the files a function's zip cannot hold (it
// holds only its bootstrap), from local files named by context, mounted by
// Lambda under /opt. Each file is there only when its context value is
// set, and so is the variable pointing at it; without any, there is no
// layer and the functions keep their embedded defaults.

// layerDir is where a layer's files appear inside the function.
const layerDir = "/opt/streamops"

// layerFile is one file of the layer and the variable that names it.
type layerFile struct {
	// source is the local file (Config).
	source string
	// name is the file's name under layerDir.
	name string
	// env is the variable set to its path.
	env string
	// on are the functions that read it.
	on []string
}

// layerFiles are the files the config asks for.
func layerFiles(cfg Config) []layerFile {
	var files []layerFile
	if cfg.ProvidersFile != "" {
		files = append(files, layerFile{cfg.ProvidersFile, "providers.json", envProvidersFile,
			[]string{fnWebhook, fnAPI, fnRetrySweeper}})
	}
	if cfg.PartnersFile != "" {
		// outbox-relay delivers to the partners, api shows them (GET /api/partners).
		files = append(files, layerFile{cfg.PartnersFile, "partners.json", envPartnersFile, []string{fnOutboxRelay, fnAPI}})
	}
	if cfg.MongoCAFile != "" {
		files = append(files, layerFile{cfg.MongoCAFile, "mongodb-ca.pem", envMongoTLSCAFile, functionNames})
	}
	return files
}

// configLayer is the layer and, per function, the variables to set.
type configLayer struct {
	layer awslambda.ILayerVersion
	env   map[string]map[string]*string
}

// uses reports whether function name reads a file of the layer.
func (l configLayer) uses(name string) bool { return len(l.env[name]) > 0 }

// newConfigLayer copies the files into <AssetDir>/config-layer/streamops
// (the layer's content; the directory is rebuilt every synth) and creates
// the layer from it. With no files it creates nothing.
func newConfigLayer(stack awscdk.Stack, cfg Config) (configLayer, error) {
	files := layerFiles(cfg)
	out := configLayer{env: map[string]map[string]*string{}}
	if len(files) == 0 {
		return out, nil
	}
	root := filepath.Join(cfg.AssetDir, "config-layer")
	if err := os.RemoveAll(root); err != nil {
		return out, err
	}
	dir := filepath.Join(root, filepath.Base(layerDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return out, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f.source)
		if err != nil {
			return out, fmt.Errorf("config layer: %w", err)
		}
		if f.env == envMongoTLSCAFile {
			if block, _ := pem.Decode(b); block == nil || block.Type != "CERTIFICATE" {
				return out, fmt.Errorf("context %s: %s holds no PEM certificate", ctxMongoCAFile, f.source)
			}
		}
		if f.env != envMongoTLSCAFile && !bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) && !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
			return out, fmt.Errorf("config layer: %s is not JSON", f.source)
		}
		// World-readable: Lambda runs the function as another user than
		// the one that owns /opt.
		if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o644); err != nil {
			return out, err
		}
		for _, fn := range f.on {
			if out.env[fn] == nil {
				out.env[fn] = map[string]*string{}
			}
			out.env[fn][f.env] = jsii.String(layerDir + "/" + f.name)
		}
	}
	out.layer = awslambda.NewLayerVersion(stack, jsii.String("ConfigLayer"), &awslambda.LayerVersionProps{
		Description:             jsii.String("StreamOps configuration files under " + layerDir + " (providers, partners, MongoDB CA bundle)"),
		Code:                    awslambda.Code_FromAsset(jsii.String(root), nil),
		CompatibleArchitectures: &[]awslambda.Architecture{awslambda.Architecture_ARM_64()},
		CompatibleRuntimes:      &[]awslambda.Runtime{awslambda.Runtime_PROVIDED_AL2023()},
	})
	return out, nil
}
