//go:build !unix

package stream

import (
	"errors"
	"os"
)

const canMap = false

func mapFile(*os.File, int64, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }
