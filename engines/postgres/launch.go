package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/searchbench/searchbench/compose/images"
	"github.com/searchbench/searchbench/engines/launch"
)

// Image is the pinned official pgvector image (the official postgres image
// with the extension added: the same environment and entry point; its tags
// read VERSION-pgMAJOR-DEBIAN); FallbackImage is the one the launcher
// builds on machines that cannot pull it — PostgreSQL 15 from Debian's
// packages plus pgvector 0.8.6 compiled from its release source, by the
// recipe compose/images/postgres embedded in the binary. Both take
// POSTGRES_PASSWORD.
const (
	Image         = "pgvector/pgvector:0.8.6-pg15-bookworm"
	FallbackImage = images.PgvectorTag
)

func init() {
	launch.Register(launch.Spec{
		Engine:    "postgres",
		Image:     Image,
		Fallback:  FallbackImage,
		Recipe:    &launch.Recipe{Files: images.Postgres, Path: "compose/images/postgres"},
		SecretEnv: "POSTGRES_PASSWORD",
		Env:       map[string]string{"POSTGRES_USER": "postgres", "POSTGRES_DB": "searchbench"},
		// Enough connections for the pool; durability as shipped (fsync on).
		Cmd:  []string{"-c", "max_connections=300", "-c", "shared_buffers=512MB"},
		Port: 5432,
		// No Tune: PostgreSQL sizes no thread pool from the host's cores
		// (it runs a process per connection), so the CPU limit alone
		// confines it.
		Ready: func(ctx context.Context, url, secret string) error {
			cfg, err := pgx.ParseConfig(url)
			if err != nil {
				return fmt.Errorf("postgres URL: %w", err)
			}
			cfg.Password = secret
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				return fmt.Errorf("postgres not accepting connections yet")
			}
			defer conn.Close(context.WithoutCancel(ctx))
			return conn.Ping(ctx)
		},
		URL: func(port int) string {
			return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/searchbench?sslmode=disable", port)
		},
	})
}
