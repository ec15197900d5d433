/// How the `Muxer` writes to a network address (`rtmp://`, `srt://`, an HLS upload over HTTP):
/// how long the server may take to answer, how often a broken stream is reconnected, and a local
/// copy that keeps everything whatever the network does.
public struct NetworkOptions: Sendable {
    /// The longest any connect or write may wait for the server (FFmpeg's `rw_timeout`).
    public var timeout: Duration
    /// How many times a stream whose connection broke is connected again before the run fails
    /// (0: fails at once). Each attempt waits twice as long as the one before, from `retryDelay`.
    /// FFmpeg never reconnects an output: the `Muxer` opens it again, writes a new header, and
    /// carries on from the next keyframe with the times continuing. An HLS upload is a series of
    /// requests and is not reconnected.
    public var reconnects: Int
    /// The wait before the first reconnection attempt.
    public var retryDelay: Duration
    /// A local file that receives every packet too, written in place in fragments (`.mp4`,
    /// `.mov`, `.mkv` or `.ts`): it is completed to the end even when the network output fails,
    /// and stays when the run then fails, so a network failure loses nothing.
    public var localCopy: String?
    /// Told each time the connection breaks, is made again, or is given up on (a command line
    /// prints these as notices).
    public var events: (@Sendable (NetworkEvent) -> Void)?
    /// How a connection over TLS (`rtmps://`, an upload to `https://`) checks the server's certificate.
    public var certificates: CertificateCheck

    /// 10 s timeout, 3 reconnection attempts from 0.5 s, no local copy, certificates checked
    /// against the system's authorities, unless told otherwise.
    public init(timeout: Duration = .seconds(10), reconnects: Int = 3, retryDelay: Duration = .milliseconds(500),
                localCopy: String? = nil, certificates: CertificateCheck = .system, events: (@Sendable (NetworkEvent) -> Void)? = nil) {
        self.certificates = certificates
        self.timeout = timeout
        self.reconnects = reconnects
        self.retryDelay = retryDelay
        self.localCopy = localCopy
        self.events = events
    }

    func validate() throws(AVPipelineError) {
        guard timeout > .zero, timeout <= .seconds(3600) else {
            throw .invalidOption(name: "timeout", value: "\(timeout)", reason: "must be more than 0 and at most 3600 s")
        }
        guard (0...100).contains(reconnects) else {
            throw .invalidOption(name: "reconnect", value: "\(reconnects)", reason: "must be between 0 and 100 attempts")
        }
    }
}

/// What happened to a network output's connection while the `Muxer` wrote to it.
public enum NetworkEvent: Sendable, CustomStringConvertible {
    /// The connection broke at `position` (output time) for `reason` (attempt 1), or
    /// reconnection attempt `attempt - 1` failed for `reason`; attempt `attempt` of `attempts`
    /// follows after `retryIn`.
    case connectionLost(reason: String, position: MediaTime?, attempt: Int, attempts: Int, retryIn: Duration)
    /// Connected again (a new header); pictures resume at the next keyframe.
    case reconnected(attempt: Int)
    /// Every attempt failed: the stream ends here, and the local copy is written to the end.
    case gaveUp(localCopy: String)

    /// One line for a person, secrets of any URL in the reason hidden (`Redaction`).
    public var description: String { Redaction.redact(unredactedDescription) }

    /// `description` with URLs as FFmpeg gave them.
    public var unredactedDescription: String {
        switch self {
        case .connectionLost(let reason, let position, let attempt, let attempts, let retryIn):
            (attempt == 1 ? "connection lost at \(MuxWriter.seconds(position)) (\(reason))" : "reconnecting failed (\(reason))")
                + "; reconnecting in \(MuxWriter.seconds(duration: retryIn)) (attempt \(attempt) of \(attempts))"
        case .reconnected(let attempt):
            "reconnected (attempt \(attempt)): a new stream header, the pictures resuming at the next keyframe"
        case .gaveUp(let localCopy):
            "giving up on the stream; the rest goes into \(localCopy) only"
        }
    }
}
