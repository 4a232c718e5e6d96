// Nationalities offered on a fresh install (the list IceHrm ships, with current spellings).
// Reference data of migration 0002; never edited once merged. Admins cannot change it through the API.
export const NATIONALITIES: ReadonlyArray<string> = `
Afghan Albanian Algerian American Andorran Angolan Antiguan Argentine Armenian Australian Austrian
Azerbaijani Bahamian Bahraini Bangladeshi Barbadian Belarusian Belgian Belizean Beninese Bhutanese
Bolivian Bosnian Botswanan Brazilian British Bruneian Bulgarian Burkinabe Burmese Burundian
Cambodian Cameroonian Canadian Cape_Verdean Central_African Chadian Chilean Chinese Colombian
Comoran Congolese Costa_Rican Croatian Cuban Cypriot Czech Danish Djiboutian Dominican Dutch
East_Timorese Ecuadorean Egyptian Emirati Equatorial_Guinean Eritrean Estonian Ethiopian Fijian
Filipino Finnish French Gabonese Gambian Georgian German Ghanaian Greek Grenadian Guatemalan
Guinea-Bissauan Guinean Guyanese Haitian Honduran Hungarian I-Kiribati Icelandic Indian Indonesian
Iranian Iraqi Irish Israeli Italian Ivorian Jamaican Japanese Jordanian Kazakhstani Kenyan
Kittitian_and_Nevisian Kosovar Kuwaiti Kyrgyz Laotian Latvian Lebanese Liberian Libyan
Liechtensteiner Lithuanian Luxembourger Macedonian Malagasy Malawian Malaysian Maldivian Malian
Maltese Marshallese Mauritanian Mauritian Mexican Micronesian Moldovan Monegasque Mongolian
Montenegrin Moroccan Mosotho Mozambican Namibian Nauruan Nepalese New_Zealander Ni-Vanuatu
Nicaraguan Nigerian Nigerien North_Korean Norwegian Omani Pakistani Palauan Palestinian Panamanian
Papua_New_Guinean Paraguayan Peruvian Polish Portuguese Qatari Romanian Russian Rwandan
Saint_Lucian Salvadoran Samoan Sammarinese Sao_Tomean Saudi Senegalese Serbian Seychellois
Sierra_Leonean Singaporean Slovak Slovenian Solomon_Islander Somali South_African South_Korean
South_Sudanese Spanish Sri_Lankan Sudanese Surinamese Swazi Swedish Swiss Syrian Taiwanese Tajik
Tanzanian Thai Togolese Tongan Trinidadian Tunisian Turkish Turkmen Tuvaluan Ugandan Ukrainian
Uruguayan Uzbek Vatican Venezuelan Vietnamese Vincentian Yemeni Zambian Zimbabwean
`
  .trim()
  .split(/\s+/)
  .map((name) => name.replace(/_/g, ' '));
