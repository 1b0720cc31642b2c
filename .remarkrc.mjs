// `npm run lint:links`, part of `npm run lint`: every link of README, CHANGELOG,
// docs/ and the client's README to a file of the repository, or to a heading
// of a page, must exist. Addresses on the web are not followed: the lint runs
// without the network. A link from docs/ is relative to docs/ (four pointed
// inside it at files of the root).
import remarkValidateLinks from 'remark-validate-links';

export default { plugins: [[remarkValidateLinks, { repository: false }]] };
