package ilgraph

import (
	"errors"
	"fmt"
)

// Error codes. They are mapped once, at the edge, to GraphQL extensions.code
// and to process exit codes.
const (
	ECONFLICT    = "conflict"
	EINTERNAL    = "internal"
	EINVALID     = "invalid"
	ENOTFOUND    = "not_found"
	EUNAVAILABLE = "unavailable"
	ETIMEOUT     = "timeout"
	ELIMIT       = "limit"
)

// Error is an application error with a code and a message safe to show a user.
type Error struct {
	Code    string
	Message string
	Err     error // the underlying cause, if any; never shown to users
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("ilgraph %s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("ilgraph %s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns an *Error with code and message that keeps err as its cause.
func WrapError(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err: the message of the
// first *Error in its chain, or a generic text that hides internals.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
