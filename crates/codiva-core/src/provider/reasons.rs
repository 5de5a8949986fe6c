//! The records' errors as one line of text, for the manager's jobs that still carry a reason
//! as a `String` (`manager/actor/lifecycle.rs`, `adoption.rs`, `full_text.rs`): they call
//! these by the names the seam had. To go once the manager keeps the typed
//! [`RecordsError`](super::RecordsError) (it words the refusal and the log note itself).

use std::path::Path;

use super::{ConversationLog, Provider};

impl<'a> dyn Provider + 'a {
    /// [`Provider::conversation`], its error as text.
    pub fn restore(&self, cwd: &Path, id: &str) -> Option<Result<ConversationLog, String>> {
        self.conversation(cwd, id)
            .map(|read| read.map_err(|err| err.to_string()))
    }

    /// [`Provider::whole_message`], its error as text.
    pub fn full_text(
        &self,
        cwd: &Path,
        id: &str,
        kept: &str,
        total: usize,
    ) -> Option<Result<Option<String>, String>> {
        self.whole_message(cwd, id, kept, total)
            .map(|read| read.map_err(|err| err.to_string()))
    }
}
