/// The fuzz harnesses: each takes arbitrary bytes and must either succeed or fail with a typed
/// `AVPipelineError` whose text is one line. Anything else — a crash, a sanitizer report, an
/// untyped error, a broken invariant — is a finding (the harness traps so libFuzzer keeps the input).
enum Harness: String, CaseIterable {
    /// open → probe → demux every track → Annex B for H.264/H.265, through custom AVIO over the bytes.
    case demux
    /// `PresentationOrder`: decode order + POCs → presentation order (the raw-video timing core).
    case presentationOrder = "presentation-order"
    /// `RawVideoTiming.startsPOCPeriod`: the NAL unit scan for IDR pictures, against a naive oracle.
    case nalScan = "nal-scan"
    /// The CLI's JSON writer (`probe --json`): any tree it writes must parse back to itself.
    case json

    func run(_ bytes: [UInt8]) {
        switch self {
        case .demux: DemuxHarness.run(bytes)
        #if DEBUG || AVPIPE_FUZZING
        case .presentationOrder: PresentationOrderHarness.run(bytes)
        case .nalScan: NALScanHarness.run(bytes)
        #else
        // They reach internal types (@testable import), which a plain release build does not export.
        case .presentationOrder, .nalScan: fatalError("\(rawValue) needs a debug build or scripts/fuzz")
        #endif
        case .json: JSONHarness.run(bytes)
        }
    }
}

/// Stops the process so libFuzzer records the input as a crash.
func finding(_ message: String) -> Never {
    fatalError("fuzz finding: \(message)")
}
