//! The room of the nodes the search drops, for the nodes it makes next.
//!
//! The path grows a node at every fresh scheduling point and drops nodes
//! as it backtracks, thousands of times a second, and each node holds
//! lists: its threads, its sleep set, the threads explored from it, the
//! footprints of their steps. Allocating them afresh took about a tenth of
//! an explored run's instructions in the published crates' loom tests
//! (st3's), so a dropped node's lists are emptied and kept here, its
//! footprints' lists of places with them, and new nodes and footprints
//! are made in that room.

use crate::id::ThreadId;

use super::super::footprint::{Footprint, Place, Touch};
use super::node::ThreadNode;

/// Emptied nodes and lists, kept for reuse.
#[derive(Debug, Default)]
pub(super) struct Spare {
    // Boxed as the path holds them (`Node::Thread`): a node goes back and
    // forth between the two without being copied or allocated.
    #[allow(clippy::vec_box)]
    nodes: Vec<Box<ThreadNode>>,
    places: Vec<Vec<(Place, bool)>>,
    threads: Vec<Vec<ThreadId>>,
}

impl Spare {
    /// Keep the room of `node`, which the path dropped.
    pub(super) fn keep(&mut self, mut node: Box<ThreadNode>) {
        for (_, footprint) in node.asleep.drain(..).chain(node.done.drain(..)) {
            self.keep_footprint(footprint);
        }
        if let Some(step) = node.step.take() {
            self.keep_footprint(step);
        }
        if let Some(mut wanted) = node.wanted.take() {
            wanted.clear();
            self.threads.push(wanted);
        }
        node.enabled.clear();
        node.cut_short.clear();
        self.nodes.push(node);
    }

    /// An emptied node (its fields other than its lists as it was left).
    pub(super) fn node(&mut self) -> Box<ThreadNode> {
        self.nodes
            .pop()
            .unwrap_or_else(|| Box::new(ThreadNode::empty()))
    }

    /// The footprint of a step that made `touches`.
    pub(super) fn footprint(&mut self, touches: impl IntoIterator<Item = Touch>) -> Footprint {
        match self.places.pop() {
            Some(room) => {
                let mut footprint = Footprint::Places(room);
                footprint.assign(touches);
                footprint
            }
            None => Footprint::of(touches),
        }
    }

    /// A copy of `footprint`.
    pub(super) fn copy(&mut self, footprint: &Footprint) -> Footprint {
        match footprint {
            Footprint::Everything => Footprint::Everything,
            Footprint::Places(places) => {
                let mut room = self.places.pop().unwrap_or_default();
                room.extend_from_slice(places);
                Footprint::Places(room)
            }
        }
    }

    /// A list of threads holding `thread` alone.
    pub(super) fn threads_of(&mut self, thread: ThreadId) -> Vec<ThreadId> {
        let mut threads = self.threads.pop().unwrap_or_default();
        threads.push(thread);
        threads
    }

    /// Bytes it holds, for the search's memory cap (an estimate, as
    /// [`ThreadNode::bytes`]).
    pub(super) fn bytes(&self) -> usize {
        let nodes: usize = self.nodes.iter().map(|node| node.bytes()).sum();
        let place = std::mem::size_of::<(Place, bool)>();
        let places: usize = self.places.iter().map(|p| place * p.capacity()).sum();
        let threads: usize = self.threads.iter().map(|t| 4 * t.capacity()).sum();
        nodes + places + threads
    }

    fn keep_footprint(&mut self, footprint: Footprint) {
        if let Footprint::Places(mut places) = footprint {
            places.clear();
            self.places.push(places);
        }
    }
}
