//! Numbers for the files of findings and launch rows: the files are few and their paths long, so
//! each is numbered by comparing it with the previous one's (then with the files seen), not by
//! hashing it, and launches are keyed by file number and launch id.

/// Files numbered from 0 in order of first appearance.
#[derive(Debug, Default)]
pub(crate) struct FileNumbers<'a> {
    /// The files seen, in order.
    files: Vec<&'a str>,
    /// The number given last, tried first.
    last: usize,
}

impl<'a> FileNumbers<'a> {
    /// The number of `file`, a new one when it has not been seen.
    pub(crate) fn number(&mut self, file: &'a str) -> usize {
        let same = |known: &&str| std::ptr::eq(*known, file) || *known == file;
        if !self.files.get(self.last).is_some_and(same) {
            self.last = match self.files.iter().position(same) {
                Some(number) => number,
                None => {
                    self.files.push(file);
                    self.files.len() - 1
                }
            };
        }
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::FileNumbers;

    #[test]
    fn files_are_numbered_in_order_of_first_appearance_by_content() {
        let again = String::from("a.csv");
        let mut numbers = FileNumbers::default();
        let got: Vec<usize> = ["a.csv", "a.csv", "b.csv", again.as_str(), "c.csv", "b.csv"]
            .into_iter()
            .map(|file| numbers.number(file))
            .collect();
        assert_eq!(got, [0, 0, 1, 0, 2, 1]);
    }
}
