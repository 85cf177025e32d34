import Core
import Testing
@testable import Realtime

/// `/metrics` names the pools of proven seeds as the catalog's prover says (`ProvenPoolMetric`):
/// Klondike's keep the names the server has always had.
@Suite struct MetricsTests {
    @Test func theProversPoolsAreNamedAsItSays() {
        let metrics = ServerMetrics(prover: KlondikeDealProver())
        metrics.provenPool[1]?.set(Double(4))
        metrics.provenPoolTarget?.set(Double(16))
        let text = metrics.render()
        #expect(text.contains(#"boardcast_winnable_pool_seeds{draw="1"} 4"#), "\(text)")
        #expect(text.contains(#"boardcast_winnable_pool_seeds{draw="3"} 0"#), "\(text)")
        #expect(text.contains("boardcast_winnable_pool_target 16"), "\(text)")
        #expect(text.contains("# HELP boardcast_winnable_pool_seeds Proven winnable seeds ready to deal, by draw"), "\(text)")
    }

    @Test func withoutAProverThereIsNoPool() {
        let text = ServerMetrics().render()
        #expect(!text.contains("_pool_"), "\(text)")
        #expect(text.contains("boardcast_connections"))
    }
}
