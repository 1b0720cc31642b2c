/** The largest amount the service takes, in minor units: 999,999.99 in a two-decimal currency (an intent's, a capture's, a mandate's limit). */
export const MAX_AMOUNT = 99_999_999;
