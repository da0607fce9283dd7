package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/searchbench/searchbench/engines"
)

// classify maps server errors onto the runner's classes.
func classify(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "53300", "53200", "53100", "55P03": // too many connections, out of memory, disk full, lock not available
			return fmt.Errorf("%w: %s (SQLSTATE %s)", engines.ErrOverloaded, pg.Message, pg.Code)
		case "57014": // query_canceled (statement timeout)
			return fmt.Errorf("%w: %s (SQLSTATE %s)", engines.ErrTimeout, pg.Message, pg.Code)
		}
	}
	return err
}
