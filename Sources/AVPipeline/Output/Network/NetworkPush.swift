/// The `Muxer`'s writing to a network stream: every packet also into the local copy (when there
/// is one), and a broken connection opened again (`NetworkOptions.reconnects`) or given up on —
/// then the run fails, after the local copy is completed.
final class NetworkPush {
    let writer: MuxWriter
    /// The local copy (`NetworkOptions.localCopy`).
    let copy: MuxWriter?
    private let options: NetworkOptions
    private let url: String
    /// Which tracks are video: after a reconnection they wait for a keyframe.
    private let videoTracks: [Bool]
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    /// Why the stream was given up on; the local copy is still written.
    @exclusivity(unchecked) private(set) var failure: AVPipelineError?
    /// Pictures are dropped until a keyframe (the decoder cannot start anywhere else).
    @exclusivity(unchecked) private var awaitingKeyframe = false
    /// Counts connections made, so the `Muxer`'s pacing can start again at each.
    @exclusivity(unchecked) private(set) var connections = 1

    init(writer: MuxWriter, copy: MuxWriter?, options: NetworkOptions, url: String, videoTracks: [Bool]) {
        self.writer = writer
        self.copy = copy
        self.options = options
        self.url = url
        self.videoTracks = videoTracks
    }

    /// Writes one packet of track `index` to the copy and the stream; releases its payload.
    func write(_ packet: Packet, track index: Int) async throws {
        if let copy { try copy.write(packet, track: index, releasing: false) }
        if failure != nil {
            packet.unref()
            return
        }
        if awaitingKeyframe && videoTracks[index] {
            guard packet.isKeyframe else {
                packet.unref()
                return
            }
            awaitingKeyframe = false
        }
        var failed: AVPipelineError?
        do {
            try writer.write(packet, track: index)
        } catch {
            guard writer.lostConnection != nil else { throw error }
            failed = error
        }
        if let failed { try await reconnect(after: failed) }
    }

    /// Where the output has got to: the stream's, or the copy's once the stream was given up.
    var position: MediaTime? { failure == nil ? writer.position : copy?.position }

    private func reconnect(after error: AVPipelineError) async throws {
        let lost = writer.lostConnection ?? "\(error)"
        let at = writer.position
        var delay = options.retryDelay
        var last = lost
        for attempt in stride(from: 1, through: options.reconnects, by: 1) {
            options.events?(.connectionLost(reason: attempt == 1 ? lost : last, position: at, attempt: attempt,
                                            attempts: options.reconnects, retryIn: delay))
            do { try await Task.sleep(for: delay) } catch { throw AVPipelineError.cancelled }
            do {
                try writer.reconnect()
                connections += 1
                awaitingKeyframe = videoTracks.contains(true)
                options.events?(.reconnected(attempt: attempt))
                return
            } catch AVPipelineError.cancelled {
                throw AVPipelineError.cancelled
            } catch AVPipelineError.outputNotWritable(_, let reason) {
                last = reason
            } catch {
                last = "\(error)"
            }
            delay = min(delay * 2, .seconds(8))
        }
        let tried = options.reconnects == 0 ? "(reconnecting is off)"
            : "and \(options.reconnects) reconnection attempt\(options.reconnects == 1 ? "" : "s") failed (\(last))"
        let kept = options.localCopy.map { "; everything is in the local copy \($0)" } ?? ""
        let failure = AVPipelineError.outputWriteFailed(path: url, reason: "the connection was lost at \(MuxWriter.seconds(at)) (\(lost)) \(tried)\(kept)")
        guard let localCopy = options.localCopy, copy != nil else { throw failure }
        self.failure = failure
        options.events?(.gaveUp(localCopy: localCopy))
    }

    /// Completes the stream (its trailer), unless it was given up on.
    func finishStream() throws(AVPipelineError) {
        if failure == nil { try writer.finish() }
    }
}
