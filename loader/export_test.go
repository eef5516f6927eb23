package loader

// SetAfterValidate makes f run between the validation and the write phase
// of every load, until the returned restore is called.
func SetAfterValidate(f func()) (restore func()) {
	old := afterValidate
	afterValidate = f
	return func() { afterValidate = old }
}

// SetBeforeWriteFile makes f run before the write pass reads each file,
// until the returned restore is called.
func SetBeforeWriteFile(f func(path string)) (restore func()) {
	old := beforeWriteFile
	beforeWriteFile = f
	return func() { beforeWriteFile = old }
}
