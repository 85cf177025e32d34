/// The searches behind `SeedRequest`s, run off the service thread.
public protocol SeedProver: Sendable {
    /// The pools a server keeps topped up.
    var pools: [Int] { get }
    /// How the server's metrics name the pools.
    var metric: ProvenPoolMetric { get }
    /// Whether the given request holds (`given` non-nil), or the first of `candidates` that
    /// does (nil: none proven within the budget).
    func prove(_ request: SeedRequest, candidates: [UInt64], budget: Int) -> SeedProof
}

public enum SeedProof: Sendable, Equatable {
    case givenProven
    case seed(UInt64)
    case notProven
}

/// The names of a prover's gauges: `boardcast_NAME_seeds{LABEL="POOL"}` (seeds ready per pool)
/// and `boardcast_NAME_target` (how many the server keeps ready), with their help texts.
public struct ProvenPoolMetric: Sendable, Equatable {
    public var name: String
    public var label: String
    public var seedsHelp: String
    public var targetHelp: String

    public init(name: String, label: String, seedsHelp: String, targetHelp: String) {
        self.name = name
        self.label = label
        self.seedsHelp = seedsHelp
        self.targetHelp = targetHelp
    }
}
