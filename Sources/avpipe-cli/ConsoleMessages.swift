import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Every line avpipe prints goes through `writeAll`, which hides the secrets of any URL in it
// (`Redaction`): messages name their inputs and outputs, and those land in shared terminals and logs.

/// A line on stdout (results a user may pipe on).
func printLine(_ text: String) { writeAll(STDOUT_FILENO, text + "\n") }

/// Text on stdout as it is (a report that ends its own lines).
func printOut(_ text: String) { writeAll(STDOUT_FILENO, text) }

/// The one line of a failed run, on stderr.
func printError(_ message: String) {
    ProgressLine.closeOpenLine()
    writeAll(STDERR_FILENO, "avpipe: error: \(message)\n")
}

/// A one-line heads-up on stderr that does not change the outcome.
func printNotice(_ message: String) {
    ProgressLine.closeOpenLine()
    writeAll(STDERR_FILENO, "avpipe: notice: \(message)\n")
}

/// A one-line warning on stderr about something that went wrong but did not stop the run.
func printWarning(_ message: String) {
    ProgressLine.closeOpenLine()
    writeAll(STDERR_FILENO, "avpipe: warning: \(message)\n")
}

func writeAll(_ fd: Int32, _ text: String) {
    var text = Redaction.redact(text)
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}
