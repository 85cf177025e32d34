import Core

/// One node of a cluster: the hub, with a `ClusterMachine` attached as its node link. The
/// shell hands it what Redis says (`receive`) and the hub everything else; both answer with
/// the hub's actions, the cluster's orders to Redis among them (`HubAction.clusterAction`).
final class ClusterNode {
    let hub: Hub
    let machine: ClusterMachine

    init(hub: Hub, identity: ClusterIdentity) {
        self.hub = hub
        machine = ClusterMachine(identity: identity, sessions: hub.sessions, sharesStore: hub.config.sharedStoreNode != nil)
        hub.attach(machine)
    }

    var counters: ClusterCounters { machine.counters }

    /// Something from the other nodes of the cluster, through Redis.
    func receive(_ event: ClusterEvent, at now: Instant) -> [HubAction] {
        hub.handleLink(at: now) { effects in
            var requests = machine.receive(event, now: now, into: &effects)
            // A link that came up claims the node's lease at once: a node that others never saw
            // alive could not be seen dying either.
            if case .link(up: true) = event {
                requests += machine.tick(now: now, lobby: hub.lobby.ownEntries, into: &effects)
            }
            return requests
        }
    }
}
